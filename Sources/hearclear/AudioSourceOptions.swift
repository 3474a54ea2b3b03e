import ArgumentParser
import AudioInput

/// Where audio comes from: a capture device, or a file. The same in `checkin`, `meter` and
/// `calibrate --reading`.
struct AudioSourceOptions: ParsableArguments {
    @Option(name: [.customShort("D"), .long], help: "ALSA capture device, as arecord -D names it (default: default).")
    var device: String?

    @Option(
        help: ArgumentHelp("Read this audio file (WAV, FLAC, Ogg, Opus, MP3; or a pipe of WAV, - for standard input) instead of the microphone.", valueName: "path"),
        transform: Self.path)
    var file: String?

    @Option(help: "Capture sample rate in Hz (default: 48000, else 44100).")
    var rate: Int?

    /// A recording's path as typed: `-` is standard input, as most command-line tools take it.
    static func path(_ typed: String) -> String { typed == "-" ? "/dev/stdin" : typed }

    func validate() throws {
        if device != nil && file != nil { throw ValidationError("use either --device or --file, not both") }
        if let rate, !(8000...192_000).contains(rate) { throw ValidationError("--rate must be between 8000 and 192000") }
    }

    func open() throws -> any AudioSource {
        if let file { return try AudioFile.open(file) }
        return try ALSACapture(device: device ?? "default", rate: rate)
    }

    /// How long a run will measure, to say so before it starts: `duration`, or a file's length
    /// where that is shorter (the run stops at the file's end); nil when neither is known (a
    /// microphone without a duration).
    func plannedSeconds(_ duration: Double?, source: any AudioSource) -> Double? {
        guard file != nil, let length = AudioFile.declaredSeconds(of: source) else { return duration }
        return min(duration ?? length, length)
    }
}
