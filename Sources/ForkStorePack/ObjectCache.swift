/// The objects a reader rebuilt last, by entry, up to 4 MB: delta bases are usually read just
/// before their deltas, so a small cache spares re-reading chains. Emptied whole when full,
/// which is simple and keeps memory bounded.
struct ObjectCache {
    private var objects: [Int: PackReader.Object] = [:]
    private var bytes = 0
    private let budget: Int

    init(budget: Int = 4 << 20) { self.budget = budget }

    subscript(number: Int) -> PackReader.Object? {
        get { objects[number] }
        set {
            guard let newValue, newValue.bytes.count <= budget else { return }
            if bytes + newValue.bytes.count > budget {
                objects.removeAll(keepingCapacity: true)
                bytes = 0
            }
            objects[number] = newValue
            bytes += newValue.bytes.count
        }
    }
}
