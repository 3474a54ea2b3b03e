import HearClearCore
import Testing

struct WeekdayHourTypedTests {
    /// Was: `hearclear quiet --at "saturday 20:00"` and `--at "fri 8pm"` were refused: only
    /// `saturday-20` was read, a form people do not write.
    @Test(arguments: [
        ("friday-20", Weekday.friday, 20), ("Friday 20", .friday, 20), ("saturday 20:00", .saturday, 20), ("SAT 20h", .saturday, 20),
        ("fri 8pm", .friday, 20), ("fri 8 PM", .friday, 20), ("sun 12am", .sunday, 0), ("sun 12pm", .sunday, 12), ("mon-9am", .monday, 9),
        ("wed 0", .wednesday, 0), ("  thu   23:00 ", .thursday, 23), ("tuesday@7", .tuesday, 7),
    ])
    func aWeekdayAndAnHourAsPeopleWriteThem(text: String, weekday: Weekday, hour: Int) {
        #expect(WeekdayHour(typed: text) == WeekdayHour(weekday: weekday, hour: hour), "\(text)")
    }

    /// An hour is asked, not a minute: 20:30 would be answered as 20:00 without a word.
    @Test(arguments: ["friday 20:30", "friday 24", "friday 13pm", "friday 0am", "fr 20", "friday", "20", "friday 20 21", "friday +5", "someday 20", ""])
    func anythingElseIsRefused(text: String) {
        #expect(WeekdayHour(typed: text) == nil, "\(text)")
    }

    /// Was: "fri 8:30pm" got the forms --at takes, as if the weekday or the hour were wrong: the
    /// minutes were, and the hour they lie in is said.
    @Test func aTimeWithMinutesIsToldTheHourItLiesIn() {
        #expect(
            WeekdayHour.typedProblem("fri 8:30pm", option: "--at")
                == "--at takes whole hours, as the answers are kept per hour: “fri 8:30pm” lies in friday-20 (20:00 to 21:00)")
        #expect(WeekdayHour.typedProblem("sat 23:45", option: "--at").hasSuffix("lies in saturday-23 (23:00 to 00:00)"))
        #expect(WeekdayHour.typedProblem("someday 20:30", option: "--at") == "--at must be \(WeekdayHour.typedRule)")
        #expect(WeekdayHour.typedProblem("friday 20:00 21", option: "--at", rule: "R") == "--at must be R")
    }
}
