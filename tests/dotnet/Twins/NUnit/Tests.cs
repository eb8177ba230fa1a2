// The NUnit twin: see ../README.md.
using System;
using NUnit.Framework;

namespace Twins;

// TWINS_ALLOC_MB=N: N MiB in arrays of 8 KiB, each stored where the JIT
// cannot prove it dead (a static field), so that the runtime counts them all.
internal static class Allocation
{
    private const int Chunk = 8192;
    private static byte[] last;

    public static void Make()
    {
        int mb = int.TryParse(Environment.GetEnvironmentVariable("TWINS_ALLOC_MB"),
                              out int v) ? v : 0;
        for (long done = 0; done < (long)mb << 20; done += Chunk)
            last = new byte[Chunk];
        GC.KeepAlive(last);
    }
}

public class YamlTests
{
    [Test]
    public void RoundTrip() => Assert.That("a: " + 1, Is.EqualTo("a: 1"));

    [Test]
    public void Parse()
    {
        Allocation.Make();
        Assert.That(int.Parse("42"), Is.EqualTo(42));
    }
}

public class OtherTests
{
    private static bool On(string name) => Environment.GetEnvironmentVariable(name) == "1";

#if !DROP_ONE
    [Test]
    public void RoundTrip() => Assert.That(1 + 1, Is.EqualTo(2));
#endif

    [Test]
    public void Fails()
    {
        if (On("TWINS_FAIL"))
            Assert.Fail("expected 1, got 2");
    }

    [Test]
    public void Crashes()
    {
        if (On("TWINS_CRASH"))
            Environment.FailFast("the test host is brought down on purpose");
    }
}
