import Foundation
import HearClearCore
import TestSignals
import Testing

@testable import LevelMeter

/// The details of each interval against the standards' own tables: C-weighting (IEC 61672-1:2013
/// table 3), the octave bands' relative attenuation (IEC 61260-1:2014 table 1) and the Fast
/// tone-burst response (IEC 61672-1:2013 table 4). Every figure is measured by feeding signals
/// through the meter, never read from the filter designs.
@Suite struct DetailTests {
    /// The levels of the last interval of `signal`, once the filters have settled.
    func settled(_ signal: [Float], sampleRate: Int, weighting: Weighting = .a) throws -> Sample {
        var meter = LevelMeter(sampleRate: sampleRate, weighting: weighting)
        return try #require(meter.process(signal).last)
    }

    /// IEC 61672-1:2013 table 3: C-weighting design goals and class 1 limits (+, −), 31.5 Hz … 12.5 kHz.
    static let cClassOne: [(frequency: Double, nominal: Double, plus: Double, minus: Double)] = [
        (31.5, -3.0, 1.5, 1.5), (40, -2.0, 1.0, 1.0), (50, -1.3, 1.0, 1.0), (63, -0.8, 1.0, 1.0), (80, -0.5, 1.0, 1.0),
        (100, -0.3, 1.0, 1.0), (125, -0.2, 1.0, 1.0), (160, -0.1, 1.0, 1.0), (200, 0, 1.0, 1.0), (250, 0, 1.0, 1.0),
        (315, 0, 1.0, 1.0), (400, 0, 1.0, 1.0), (500, 0, 1.0, 1.0), (630, 0, 1.0, 1.0), (800, 0, 1.0, 1.0),
        (1000, 0, 0.7, 0.7), (1250, 0, 1.0, 1.0), (1600, -0.1, 1.0, 1.0), (2000, -0.2, 1.0, 1.0), (2500, -0.3, 1.0, 1.0),
        (3150, -0.5, 1.0, 1.0), (4000, -0.8, 1.0, 1.0), (5000, -1.3, 1.5, 1.5), (6300, -2.0, 1.5, 2.0),
        (8000, -3.0, 1.5, 2.5), (10000, -4.4, 2.0, 3.0), (12500, -6.2, 2.0, 5.0),
    ]

    @Test(arguments: [44_100, 48_000])
    func cWeightingMeetsClassOne(sampleRate: Int) throws {
        for point in Self.cClassOne {
            let tone = Signal.sine(frequency: point.frequency, dBFS: -10, seconds: 2, sampleRate: sampleRate)
            let measured = try settled(tone, sampleRate: sampleRate, weighting: .z)
            let c = try #require(measured.details).cAvg - measured.avg
            #expect(c <= point.nominal + point.plus && c >= point.nominal - point.minus, "\(point.frequency) Hz at \(sampleRate) Hz reads \(c) dB")
        }
    }

    /// IEC 61260-1:2014 table 1, octave bands, class 1: limits on relative attenuation at
    /// Ω = G^x (G = 10^(3/10)), the same below the midband at 1/Ω. `nil`: no upper limit.
    static let octaveClassOne: [(exponent: Double, minimum: Double, maximum: Double?)] = [
        (0, -0.4, 0.4), (1.0 / 8, -0.4, 0.5), (1.0 / 4, -0.4, 0.7), (3.0 / 8, -0.4, 1.4),
        // At the band edge the pass-band's maximum (+5.3) and the stop-band's minimum (+1.2) meet.
        (1.0 / 2, 1.2, 5.3),
        (1, 16.6, nil), (2, 40.5, nil), (3, 60, nil), (4, 70, nil), (5, 70, nil),
    ]

    @Test(arguments: [44_100, 48_000])
    func octaveBandsMeetClassOne(sampleRate: Int) throws {
        let g = pow(10, 3.0 / 10)
        for band in OctaveBand.allCases {
            let atMidband = try #require(settled(Signal.sine(frequency: band.midband, dBFS: -10, seconds: 2, sampleRate: sampleRate), sampleRate: sampleRate).details).octaves[band.rawValue]
            for limit in Self.octaveClassOne {
                for side in [1.0, -1.0] {
                    let frequency = band.midband * pow(g, side * limit.exponent)
                    guard frequency < 0.45 * Double(sampleRate), frequency >= 20 else { continue }
                    let seconds = frequency < 100 ? 3.0 : 2.0
                    let level = try #require(settled(Signal.sine(frequency: frequency, dBFS: -10, seconds: seconds, sampleRate: sampleRate), sampleRate: sampleRate).details).octaves[band.rawValue]
                    let attenuation = atMidband - level
                    let where_ = "\(band.nominal) Hz band at \(Int(frequency)) Hz (G^\(side * limit.exponent)), \(sampleRate) Hz: \(attenuation) dB"
                    #expect(attenuation >= limit.minimum, "\(where_)")
                    if let maximum = limit.maximum { #expect(attenuation <= maximum, "\(where_)") }
                }
            }
        }
    }

    @Test func aToneAtTheMidbandReadsItsLevelInItsBandOnly() throws {
        let measured = try #require(settled(Signal.sine(frequency: 1000, dBFS: -20, seconds: 2, sampleRate: 48_000), sampleRate: 48_000).details)
        #expect(abs(measured.octaves[1] - -23.01) <= 0.05)
        #expect(measured.octaves[0] < -23.01 - 16.6 && measured.octaves[2] < -23.01 - 16.6 && measured.octaves[3] < -23.01 - 40.5)
        #expect(abs(measured.sil - measured.octaves.reduce(0, +) / 4) < 1e-12)
    }

    /// IEC 61672-1:2013 table 4, Fast: the response to a 4 kHz tone burst of duration Tb relative to
    /// the steady tone is 10·lg(1 − e^(−Tb/τ)), with class 1 tolerances (+, −).
    static let toneBursts: [(milliseconds: Double, reference: Double, plus: Double, minus: Double)] = [
        (1000, 0.0, 0.5, 0.5), (500, -0.1, 0.5, 0.5), (200, -1.0, 0.5, 0.5), (100, -2.6, 1.0, 1.0), (50, -4.8, 1.0, 1.0),
        (20, -8.3, 1.0, 1.0), (10, -11.1, 1.0, 1.0), (5, -14.1, 1.0, 1.0), (2, -18.0, 1.0, 1.5), (1, -21.0, 1.0, 2.0),
    ]

    @Test(arguments: [44_100, 48_000])
    func fastMaximaFollowTheToneBurstTable(sampleRate: Int) throws {
        let steady = try settled(Signal.sine(frequency: 4000, dBFS: -10, seconds: 2, sampleRate: sampleRate), sampleRate: sampleRate)
        let tone = Signal.sine(frequency: 4000, dBFS: -10, seconds: 2, sampleRate: sampleRate)
        for burst in Self.toneBursts {
            // Silence, then the burst starting between two of the detector's steps, then silence.
            let start = Int(0.4003 * Double(sampleRate)), length = Int((burst.milliseconds / 1000 * Double(sampleRate)).rounded())
            var signal = [Float](repeating: 0, count: 2 * sampleRate)
            signal.replaceSubrange(start..<(start + length), with: tone[start..<(start + length)])
            var meter = LevelMeter(sampleRate: sampleRate)
            let intervals = meter.process(signal)
            let response = try #require(intervals.compactMap(\.details).map(\.fastMax).max()) - steady.avg
            // The expected value computed here from the definition, and the table's rounded one.
            let definition = 10 * log10(1 - exp(-burst.milliseconds / 1000 / LevelDetails.fastTimeConstant))
            #expect(abs(definition - burst.reference) <= 0.05 || burst.milliseconds >= 500)
            #expect(response <= burst.reference + burst.plus && response >= burst.reference - burst.minus, "\(burst.milliseconds) ms at \(sampleRate) Hz: \(response) dB")
            // The detector steps every millisecond: a burst of one or two straddles steps.
            #expect(abs(response - definition) <= (burst.milliseconds >= 5 ? 0.1 : 0.3), "\(burst.milliseconds) ms at \(sampleRate) Hz: \(response) dB, by definition \(definition)")
        }
    }

    @Test func theFastDetectorCarriesOnAcrossIntervals() throws {
        let loud = Signal.sine(frequency: 1000, dBFS: -10, seconds: 1, sampleRate: 48_000)
        var meter = LevelMeter(sampleRate: 48_000)
        let intervals = meter.process(loud + [Float](repeating: 0, count: 48_000))
        #expect(intervals.count == 2)
        let first = try #require(intervals[0].details), second = try #require(intervals[1].details)
        #expect(abs(first.fastMax - intervals[0].avg) < 0.1)
        // The second second is silent (but for the filter's ringing), yet its Fast level starts
        // where the first one ended.
        #expect(intervals[1].avg < first.fastMax - 30)
        #expect(abs(second.fastMax - first.fastMax) < 0.1)
    }

    /// At 16 kHz every band still fits below Nyquist (8 kHz); at 8 kHz the 4 kHz band cannot
    /// (it reaches 5.6 kHz), so intervals carry no details, only avg and peak.
    @Test func lowSampleRates() throws {
        let sixteen = try settled(Signal.sine(frequency: 4000, dBFS: -10, seconds: 2, sampleRate: 16_000), sampleRate: 16_000)
        #expect(abs(try #require(sixteen.details).octaves[3] - -13.01) < 0.1)
        let eight = try settled(Signal.sine(frequency: 1000, dBFS: -10, seconds: 2, sampleRate: 8_000), sampleRate: 8_000)
        #expect(eight.details == nil && abs(eight.avg - -13.01) < 0.05)
    }
}
