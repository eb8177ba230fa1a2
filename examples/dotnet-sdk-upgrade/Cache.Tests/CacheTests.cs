// Correctness tests of the cache, the same for both versions, and two
// benchmark tests that print "BENCH name_ms=..." through ITestOutputHelper:
// xunit puts that text in the TRX <StdOut> of the test, where abev's plan
// (../plan.json) reads its metrics.
using System;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Example.Cache;
using Xunit;
using Xunit.Abstractions;

public class CacheTests
{
    private readonly ITestOutputHelper output;

    public CacheTests(ITestOutputHelper output) => this.output = output;

    [Fact]
    public void ComputesOnceAndReturnsTheSameValue()
    {
        int calls = 0;
        var cache = new LookupCache<int, string>(k => { Interlocked.Increment(ref calls); return $"v{k}"; });
        Assert.Equal("v7", cache.Get(7));
        Assert.Equal("v7", cache.Get(7));
        Assert.Equal(1, calls);
        Assert.Equal(1, cache.Count);
    }

    [Fact]
    public void RemovedKeysAreComputedAgain()
    {
        var cache = new LookupCache<string, int>(s => s.Length);
        Assert.Equal(3, cache.Get("abc"));
        Assert.True(cache.Remove("abc"));
        Assert.False(cache.Remove("abc"));
        Assert.Equal(0, cache.Count);
        Assert.Equal(3, cache.Get("abc"));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    [InlineData(16)]
    public void ConcurrentReadersSeeOneValuePerKey(int threads)
    {
        var cache = new LookupCache<int, int>(k => k * k);
        Parallel.For(0, threads, _ =>
        {
            for (int i = 0; i < 1000; i++)
                Assert.Equal(i * i, cache.Get(i));
        });
        Assert.Equal(1000, cache.Count);
    }

    [Fact]
    public void ReportsItsVersion() => Assert.InRange(LookupCache<int, int>.Version, 1, 2);

    private double Time(Action work)
    {
        work(); // JIT and first touches are not measured
        var sw = Stopwatch.StartNew();
        work();
        return sw.Elapsed.TotalMilliseconds;
    }

    [Fact]
    public void BenchParallelReads()
    {
        var cache = new LookupCache<int, int>(k => k + 1);
        for (int i = 0; i < 4096; i++)
            cache.Get(i);
        double ms = Time(() => Parallel.For(0, 4, t =>
        {
            long sum = 0;
            for (int i = 0; i < 400_000; i++)
                sum += cache.Get((i * 31 + t) & 4095);
            Assert.True(sum > 0);
        }));
        output.WriteLine(FormattableString.Invariant($"BENCH parallel_reads_ms={ms:F3}"));
    }

    [Fact]
    public void BenchSingleThreadMix()
    {
        var cache = new LookupCache<int, int>(k => k ^ 0x5a5a);
        double ms = Time(() =>
        {
            for (int i = 0; i < 300_000; i++)
            {
                cache.Get(i & 8191);
                if ((i & 1023) == 0)
                    cache.Remove(i & 8191);
            }
        });
        output.WriteLine(FormattableString.Invariant($"BENCH single_thread_mix_ms={ms:F3}"));
    }
}
