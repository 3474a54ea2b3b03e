import Testing

@testable import hearclear_bench

/// A goal in the report reads as met exactly when it is: the value is never rounded onto the other
/// side of its bound.
@Suite struct GoalTests {
    @Test func aMissJustUnderItsBoundIsNotRoundedOntoIt() {
        let goal = CaseResult.Goal(description: "PostgreSQL loudness ÷ SQLite loudness", value: 0.8987, bound: .atLeast(0.9))
        #expect(!goal.met)
        #expect(goal.shownValue == "0.899")
        #expect(goal.target == "≥ 0.90")
    }

    @Test func aMissJustOverItsBoundKeepsTheHundredth() {
        let goal = CaseResult.Goal(description: "bytes", value: 12.04, bound: .atMost(12))
        #expect(!goal.met && goal.shownValue == "12.04" && goal.target == "≤ 12")
        let close = CaseResult.Goal(description: "bytes", value: 12.0004, bound: .atMost(12))
        #expect(!close.met && close.shownValue == "12.0004")
    }

    @Test func aGoalMetJustAtItsBoundReadsAsMet() {
        let rounded = CaseResult.Goal(description: "cost", value: 1.30049, bound: .atMost(1.3))
        #expect(!rounded.met && rounded.shownValue == "1.3005")
        let met = CaseResult.Goal(description: "cost", value: 1.2996, bound: .atMost(1.3))
        #expect(met.met && met.shownValue == "1.30")
        let below = CaseResult.Goal(description: "memory", value: 29.996, bound: .below(30))
        #expect(below.met && below.shownValue == "29.996" && below.target == "< 30")
        let plain = CaseResult.Goal(description: "ratio", value: 2.6412, bound: .atLeast(2))
        #expect(plain.met && plain.shownValue == "2.64")
    }
}
