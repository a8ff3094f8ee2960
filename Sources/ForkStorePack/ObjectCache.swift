/// The objects a reader rebuilt last, by entry, up to a budget (4 MB by default): delta bases
/// are usually read just before their deltas, so a small cache spares re-reading chains. Kept
/// in two halves: when the recent half is full, it becomes the older one and the older one is
/// let go of, so what was made just before is still there after (emptied whole, the cache lost
/// the bases of the very next reads each time it filled). A budget of 0 keeps nothing and
/// costs no lookup.
package struct ObjectCache {
    private var recent: [Int: PackReader.Object] = [:], older: [Int: PackReader.Object] = [:]
    /// What the objects in `recent` cost: their bytes, and ``entryCost`` each.
    private var cost = 0
    private let budget: Int

    /// What an entry costs beside its bytes (its place in the table, the array's header), so
    /// that many empty objects cannot fill memory while costing nothing.
    private static let entryCost = 64

    /// A cache of at most `budget` bytes, half of it for the objects made last.
    package init(budget: Int = 4 << 20) { self.budget = budget }

    /// The object made from entry `number`, if it is kept; setting one keeps it when it costs
    /// at most half the budget.
    package subscript(number: Int) -> PackReader.Object? {
        get { budget > 0 ? recent[number] ?? older[number] : nil }
        set {
            guard budget > 0, let newValue, newValue.bytes.count + Self.entryCost <= budget / 2 else { return }
            let added = newValue.bytes.count + Self.entryCost
            if let replaced = recent.removeValue(forKey: number) { cost -= replaced.bytes.count + Self.entryCost }
            if cost + added > budget / 2 {
                older = recent
                recent = [:]
                cost = 0
            }
            recent[number] = newValue
            cost += added
        }
    }
}
