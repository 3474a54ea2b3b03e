import Foundation

/// One benchmark's outcome: what was measured, against which reference, and the goals.
struct CaseResult: Encodable {
    struct Metric: Encodable {
        let name: String
        let value: Double
        let unit: String
    }

    let name: String
    let reference: String
    let metrics: [Metric]
    let goals: [Goal]
    let note: String
}
