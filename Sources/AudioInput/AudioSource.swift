/// Something that yields mono samples in [−1, 1]: a WAV file or a microphone.
public protocol AudioSource: AnyObject {
    var sampleRate: Int { get }
    /// Blocks until some samples are there; `nil` when the source has ended.
    func read(maxFrames: Int) throws -> [Float]?
}
