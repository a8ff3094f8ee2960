/// The objects a reader rebuilt last, by entry, up to a budget (4 MB by default): delta bases
/// are usually read just before their deltas, so a small cache spares re-reading chains. Kept
/// in two halves: when the recent half is full, it becomes the older one and the older one is
/// let go of, so what was made just before is still there after (emptied whole, the cache lost
/// the bases of the very next reads each time it filled). A budget of 0 keeps nothing and
/// costs no lookup.
package struct ObjectCache {
    private var recent: [Int: PackReader.Object] = [:], older: [Int: PackReader.Object] = [:]
    /// The bytes of the objects in `recent`.
    private var bytes = 0
    private let budget: Int

    package init(budget: Int = 4 << 20) { self.budget = budget }

    package subscript(number: Int) -> PackReader.Object? {
        get { budget > 0 ? recent[number] ?? older[number] : nil }
        set {
            guard budget > 0, let newValue, newValue.bytes.count <= budget / 2 else { return }
            if bytes + newValue.bytes.count > budget / 2 {
                older = recent
                recent = [:]
                bytes = 0
            }
            recent[number] = newValue
            bytes += newValue.bytes.count
        }
    }
}
