// The MSTest twin: see ../README.md.
using System;
using Microsoft.VisualStudio.TestTools.UnitTesting;

[assembly: DoNotParallelize]

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

[TestClass]
public class YamlTests
{
    [TestMethod]
    public void RoundTrip() => Assert.AreEqual("a: 1", "a: " + 1);

    [TestMethod]
    public void Parse()
    {
        Allocation.Make();
        Assert.AreEqual(42, int.Parse("42"));
    }
}

[TestClass]
public class OtherTests
{
    private static bool On(string name) => Environment.GetEnvironmentVariable(name) == "1";

#if !DROP_ONE
    [TestMethod]
    public void RoundTrip() => Assert.AreEqual(2, 1 + 1);
#endif

    [TestMethod]
    public void Fails()
    {
        if (On("TWINS_FAIL"))
            Assert.Fail("expected 1, got 2");
    }

    [TestMethod]
    public void Crashes()
    {
        if (On("TWINS_CRASH"))
            Environment.FailFast("the test host is brought down on purpose");
    }
}
