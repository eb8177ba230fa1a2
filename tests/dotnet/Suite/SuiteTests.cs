// The tests `make check-dotnet` runs through abev: facts, a skipped fact,
// a theory of three cases, a test that prints a BENCH line through
// ITestOutputHelper (it lands in the TRX StdOut), and one test that the
// candidate build (-p:AbevDropOne=1) leaves out, as an upgrade that quietly
// loses a test would.
using System.Diagnostics;
using Xunit;
using Xunit.Abstractions;

public class SuiteTests
{
    private readonly ITestOutputHelper output;

    public SuiteTests(ITestOutputHelper output) => this.output = output;

    [Fact]
    public void Adds() => Assert.Equal(4, 2 + 2);

    [Fact(Skip = "skipped on purpose: counted as not executed")]
    public void Skipped() { }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void PositiveCases(int x) => Assert.True(x > 0);

    [Fact]
    public void SumBench()
    {
        var sw = Stopwatch.StartNew();
        long sum = 0;
        for (int i = 0; i < 2_000_000; i++)
            sum += i % 7;
        sw.Stop();
        Assert.True(sum > 0);
        output.WriteLine($"BENCH sum_ms={sw.Elapsed.TotalMilliseconds:F3}");
    }

#if !DROP_ONE
    [Fact]
    public void OnlyInTheBaseline() => Assert.NotNull(typeof(SuiteTests).Assembly);
#endif
}
