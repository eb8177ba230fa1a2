// The MSTest twin: see ../README.md.
using System;
using Microsoft.VisualStudio.TestTools.UnitTesting;

[assembly: DoNotParallelize]

namespace Twins;

[TestClass]
public class YamlTests
{
    [TestMethod]
    public void RoundTrip() => Assert.AreEqual("a: 1", "a: " + 1);

    [TestMethod]
    public void Parse() => Assert.AreEqual(42, int.Parse("42"));
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
