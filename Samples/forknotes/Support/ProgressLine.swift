import ForkStoreExchange
import Foundation

/// A one-line progress display on standard error, shown only when it is a terminal, so
/// pipes and logs stay clean.
final class ProgressLine: Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1

    func show(_ progress: TransferProgress) {
        guard enabled else { return }
        let verb = progress.direction == .fetch ? "Fetching" : "Pushing"
        let total = progress.totalObjects > 0 ? "/\(progress.totalObjects)" : ""
        let kilobytes = String(format: "%.1f", Double(progress.bytes) / 1024)
        FileHandle.standardError.write(Data("\r\(verb): \(progress.objects)\(total) objects, \(kilobytes) KB\u{1B}[K".utf8))
    }

    /// The check of fetched commits, before any of them is taken in.
    func show(_ progress: CheckProgress) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\rChecking: \(progress.commits)/\(progress.totalCommits) commits\u{1B}[K".utf8))
    }

    /// The notes a sync landed, written into the index so the next `list` finds them ready.
    func show(_ progress: IndexProgress) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\rIndexing: \(progress.records)/\(progress.totalRecords) notes\u{1B}[K".utf8))
    }

    /// An asset's transfer: its name or id, and how much of it has moved.
    func show(_ progress: AssetTransferProgress) {
        guard enabled else { return }
        let verb = progress.direction == .upload ? "Uploading" : "Downloading"
        let name = (progress.asset.fileName ?? progress.asset.id.oid).escapedForTerminal
        FileHandle.standardError.write(Data("\r\(verb) \(name): \(StatusCommand.fraction(progress))\u{1B}[K".utf8))
    }

    /// A count display for long local work, such as an import.
    func show(done: Int, label: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\(label): \(done)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
