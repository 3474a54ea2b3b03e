import HearClearCore

extension SoundFeatures {
    /// The numbers these features are computed with, `classifier`'s network and `unchangingSound`'s
    /// span, as API v2's meter design hands them to the browser's meter (`SoundClassesDesign`).
    func design(classifier: SoundClassifier, unchangingSound: UnchangingSound) -> SoundClassesDesign {
        SoundClassesDesign(
            decimationFactor: decimator.factor, decimationTaps: decimator.taps, frameSize: frameSize,
            spectrumBins: [spectrumBins.lowerBound, spectrumBins.upperBound], binKHz: binKHz,
            bands: bandEnds.indices.map { band in
                let members = (band == 0 ? 0 : bandEnds[band - 1])..<bandEnds[band]
                return SoundClassesDesign.Band(bins: Array(bandBins[members]), weights: Array(bandWeights[members]))
            },
            pitchLags: [pitchLags.lowerBound, pitchLags.upperBound], windowCorrelation: windowCorrelation,
            steadinessReach: PeakSteadiness.reach, fewestFramesJudged: SoundClassifier.fewestFramesJudged,
            unchangingIntervals: unchangingSound.intervals, unchangingRange: UnchangingSound.range, detected: SoundClasses.detected, model: classifier.model)
    }
}
