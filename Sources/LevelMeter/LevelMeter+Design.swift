import HearClearCore

extension LevelMeter {
    /// This meter's filters and rules as API v2 hands them to a meter elsewhere (the browser's):
    /// the same sections and sample counts this meter runs, how it finds speech and music when it
    /// does, and the loud events' rule.
    public var designDocument: MeterDesignDocument {
        MeterDesignDocument(
            sampleRate: sampleRate, intervalS: interval, samplesPerInterval: samplesPerInterval, samplesPerFastStep: samplesPerStep,
            a: design.a.map(\.coefficients), c: design.c.map(\.coefficients), bands: design.bands?.map { $0.map(\.coefficients) },
            classes: classifier.flatMap { classifier in features?.design(classifier: classifier, unchangingSound: unchangingSound) },
            loudEvents: .init(thresholdDB: LoudEventDetector.defaultThresholdDB, mergeWindowS: LoudEventDetector.defaultMergeWindow))
    }
}
