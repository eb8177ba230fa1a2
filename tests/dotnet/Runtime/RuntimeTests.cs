// Tests whose runtime figures are known, steered by the environment so that
// one build serves every variant: ABEV_ALLOC_MB allocates that many MiB in
// small, short-lived arrays (gen0 work, which server GC collects less often),
// ABEV_CONTEND makes a thread wait on a lock another one holds (so the
// runtime counts lock contention). Without them they do next to nothing.
using System;
using System.Threading;
using Xunit;

public class RuntimeTests
{
    private const int Chunk = 8192;
    private static byte[]? last;

    private static int Env(string name) =>
        int.TryParse(Environment.GetEnvironmentVariable(name), out int v) ? v : 0;

    [Fact]
    public void Allocates()
    {
        long bytes = (long)Env("ABEV_ALLOC_MB") << 20;
        // Array payloads of exactly that size; each array's header adds 24 bytes (0.3 %).
        for (long done = 0; done < bytes; done += Chunk)
            last = new byte[Chunk];
        Assert.True(bytes == 0 || last != null);
    }

    [Fact]
    public void Contends()
    {
        int rounds = Env("ABEV_CONTEND");
        var gate = new object();
        for (int i = 0; i < rounds; i++)
        {
            var waiter = new Thread(() => { lock (gate) { } });
            lock (gate)
            {
                waiter.Start();
                // Held until the waiter blocks on it: that wait is contention.
                while ((waiter.ThreadState & ThreadState.WaitSleepJoin) == 0)
                    Thread.Sleep(10);
                Thread.Sleep(50);
            }
            waiter.Join();
        }
    }
}
