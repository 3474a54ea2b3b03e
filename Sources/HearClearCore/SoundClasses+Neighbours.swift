extension SoundClasses {
    /// A series' classes each judged beside its neighbours, the last rule of models from version
    /// 22 on (`SoundClassesModel.neighbourIntervals`): an interval's probability of a class becomes
    /// the mean of its own and those of the classified intervals up to that class's reach either
    /// side of it, in whole percent as they go up. Music lasts for seconds and many of the
    /// network's errors do not; speech pauses between words, so version 22 gives speech no
    /// neighbours (docs/sound-classes.md, "Version 22's second trial"). Worked in whole percent,
    /// the mean rounded half up, so that the client and the browser's meter (`sound-classes.js`),
    /// which averages the same integers, send the same numbers. Unclassified intervals stay so and
    /// are no one's neighbours.
    public static func judgedBesideNeighbours(_ intervals: [SoundClasses?], reach: SoundClassesModel.NeighbourIntervals) -> [SoundClasses?] {
        guard reach.speech > 0 || reach.music > 0 else { return intervals }
        let percents = intervals.map { $0?.percent }
        func mean(at index: Int, reach: Int, of kind: ((speech: Int, music: Int)) -> Int) -> Int {
            let near = percents[max(0, index - reach)...min(percents.count - 1, index + reach)].compactMap { $0.map(kind) }
            return Int((Double(near.reduce(0, +)) / Double(near.count)).rounded())
        }
        return percents.indices.map { index in
            guard percents[index] != nil else { return nil }
            return SoundClasses(percent: mean(at: index, reach: reach.speech) { $0.speech }, mean(at: index, reach: reach.music) { $0.music })
        }
    }
}
