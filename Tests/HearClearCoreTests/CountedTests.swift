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

    /// Was: "147940 samples" on the admin dashboard, where a store's samples run into millions.
    @Test func largeCountsAreWrittenInGroupsOfThreeDigits() {
        #expect(147_940.counted("sample") == "147,940 samples")
        #expect(1_000.grouped == "1,000" && 999.grouped == "999" && 300_000_000.grouped == "300,000,000")
        #expect((-1_234).grouped == "-1,234" && 0.grouped == "0")
        #expect(1.form(of: "venue") == "venue" && 1_000.form(of: "venue") == "venues")
    }
}
