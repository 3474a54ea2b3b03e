import HearClearCore
import Testing

struct CountedTests {
    /// Was: "1 check-ins" on the public venue page and in `hearclear loudness`, "1 check-in(s)" in
    /// `sync` and `verify`.
    @Test func oneIsSingularAndEveryOtherCountPlural() {
        #expect(1.counted("check-in") == "1 check-in")
        #expect(0.counted("check-in") == "0 check-ins")
        #expect(16.counted("check-in") == "16 check-ins")
        #expect(2.counted("difference") == "2 differences")
    }
}
