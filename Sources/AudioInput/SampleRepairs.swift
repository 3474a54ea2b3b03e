import HearClearCore

/// Samples a float file can hold that a meter of full-scale audio cannot take: not a number (NaN,
/// infinity), and beyond full scale (a float file's overs, a lossy decoder's overshoot, or 1e30).
/// Either reached the meter's filters as it was: one NaN or one 1e30 (whose square is infinite in
/// single precision) turned every later level into NaN, and the program stopped where a level
/// became an integer. The readers of float data mend them — a sample that is not a number is read
/// as silence, one beyond full scale as full scale, as a converter to integers clips it — and say
/// how many they mended.
struct SampleRepairs {
    private var notNumbers = 0
    private var beyondFullScale = 0
    /// The frame of the first one mended.
    private var first: Int?

    /// Mends `block`, whose first sample is frame `frame` of the file.
    mutating func mend(_ block: inout [Float], from frame: Int) {
        for index in block.indices where !(abs(block[index]) <= 1) {
            if block[index].isFinite {
                beyondFullScale += 1
                block[index] = block[index] > 0 ? 1 : -1
            } else {
                notNumbers += 1
                block[index] = 0
            }
            if first == nil { first = frame + index }
        }
    }

    /// What was mended, in words; nil when nothing was.
    func description(path: String, sampleRate: Int) -> String? {
        guard let first else { return nil }
        var mended: [String] = []
        if notNumbers > 0 { mended.append("\(notNumbers.counted("sample")) that \(notNumbers == 1 ? "is not a number" : "are not numbers") (NaN or infinity) read as silence") }
        if beyondFullScale > 0 { mended.append("\(beyondFullScale.counted("sample")) beyond full scale read as full scale") }
        let at = WAVFile.duration(Double(first) / Double(sampleRate))
        return "\(path): \(mended.joined(separator: " and ")), the first at \(at)"
    }
}
