// Three passing tests, a data-driven one of two rows and one ignored: the
// console counts 5 (4 passed, 1 skipped), which abev reads from the TRX.
using Microsoft.VisualStudio.TestTools.UnitTesting;

[TestClass]
public class MtpTests
{
    [TestMethod]
    public void Adds() => Assert.AreEqual(4, 2 + 2);

    [TestMethod]
    public void Concatenates() => Assert.AreEqual("ab", "a" + "b");

    [TestMethod]
    [DataRow(1, 2)]
    [DataRow(3, 6)]
    public void Doubles(int x, int twice) => Assert.AreEqual(twice, 2 * x);

    [TestMethod]
    [Ignore("skipped on purpose")]
    public void Skipped() => Assert.Fail("never runs");
}
