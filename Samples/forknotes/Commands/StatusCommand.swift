import ArgumentParser
import ForkStore
import ForkStoreExchange
import Foundation

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the sync state: remote, last result, commits ahead and behind.",
        discussion: "Example: forknotes status --store notes --json")

    @OptionGroup var location: StoreLocation
    @Flag(help: "Print JSON instead of lines.") var json = false

    struct Status: Codable {
        var remote: String?
        var state: String
        var ahead: Int
        var behind: Int
        var lastError: String?
        var lastSuccess: Date?
        var quarantine: String?
        /// The horizon of main's history: the commit its root checkpoint stands in for, when
        /// the history was compacted.
        var horizon: String?
        /// Attachments still to move: uploads the next sync makes before it pushes, and
        /// fetches an interrupted process left half-way.
        var transfers: [Transfer]
    }

    struct Transfer: Codable {
        var direction: String
        var asset: String
        var name: String?
        var bytes: Int
        var totalBytes: Int
    }

    func run() async throws {
        let store = try location.open()
        let settings = SyncSettings.load(for: location.path)
        let checkpoint = try await store.checkpoint(of: .main)
        var ahead = 0, behind = 0
        if try await store.hasFork(.cloud) {
            (ahead, behind) = try await store.divergence(of: .main, from: .cloud)
        } else {
            ahead = try await store.history(of: .main).count
        }
        var transfers: [AssetTransferProgress] = []
        if settings.remote != nil {
            // Worked out from the store and, for a path remote, its folder: no network.
            transfers = (try? await SyncSettings.exchange(for: store, at: location.path).pendingAssetTransfers()) ?? []
        }
        let status = Status(
            remote: settings.remote, state: settings.lastState ?? "never synced", ahead: ahead, behind: behind,
            lastError: settings.lastError, lastSuccess: settings.lastSuccess, quarantine: settings.quarantine,
            horizon: checkpoint?.checkpointOf?.hex,
            transfers: transfers.map {
                Transfer(
                    direction: $0.direction == .upload ? "upload" : "download", asset: $0.asset.id.oid, name: $0.asset.fileName,
                    bytes: $0.bytes, totalBytes: $0.totalBytes)
            })
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(status), as: UTF8.self))
            return
        }
        print("remote:       \(status.remote?.escapedForTerminal ?? "none (forknotes init --remote URL, or sync --remote URL)")")
        print("state:        \(status.state)")
        print("ahead:        \(ahead) commit(s) not yet pushed")
        print("behind:       \(behind) commit(s) fetched but not merged")
        print("last success: \(status.lastSuccess.map { $0.formatted(.iso8601) } ?? "never")")
        if let error = status.lastError { print("last error:   \(error.escapedForTerminal)") }
        if let checkpoint, let horizon = checkpoint.checkpointOf {
            let date = checkpoint.date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
            print("horizon:      history from \(date) (checkpoint \(checkpoint.id.short) of \(horizon.short)); older commits compacted")
        } else {
            print("horizon:      none, every commit kept")
        }
        if let kept = status.quarantine { print("quarantine:   \(kept.escapedForTerminal), removed by the next sync") }
        for transfer in transfers {
            let verb = transfer.direction == .upload ? "to upload:   " : "to download: "
            let name = (transfer.asset.fileName ?? transfer.asset.id.oid).escapedForTerminal
            print("\(verb) \(name), \(Self.fraction(transfer))")
        }
    }

    /// `12.0 MB of 20.0 MB (60%)`.
    static func fraction(_ progress: AssetTransferProgress) -> String {
        // In floating point: bytes × 100 could overflow for a size near Int.max.
        let percent = progress.totalBytes > 0 ? Int(min(1, Double(progress.bytes) / Double(progress.totalBytes)) * 100) : 100
        return "\(AttachmentName.size(progress.bytes)) of \(AttachmentName.size(progress.totalBytes)) (\(percent)%)"
    }
}
