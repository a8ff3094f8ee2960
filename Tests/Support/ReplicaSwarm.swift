import Foundation

/// Many replicas of one Tally (an add-wins set: a lost edit shows), each a stress-writer
/// process with a store of its own, making edits (one commit each) and syncing through one smart-HTTP remote (lighttpd + git http-backend) a few at a
/// time, then syncing again until every replica's `main` holds the remote's tree (issue 25).
/// Used by the soak test and, with more replicas, by scripts/replica-benchmark.sh.
public struct ReplicaSwarm: Sendable {
    public var replicas: Int
    public var edits: Int
    /// Edits between syncs; each replica also syncs after its last edit.
    public var syncEvery: Int
    /// Replica processes running at once.
    public var concurrency: Int
    /// How long the replicas may take, catching up included: no round of syncs starts after
    /// it, a replica still losing push races then fails, and one still running a minute
    /// after it is stopped (the stress writer's `replica` mode).
    public var timeLimit: TimeInterval
    /// Rounds of catch-up syncs at most; replicas still lagging after them are a problem.
    public var maximumCatchUpRounds: Int

    public init(
        replicas: Int, edits: Int = 20, syncEvery: Int = 10, concurrency: Int = 8, timeLimit: TimeInterval = 200,
        maximumCatchUpRounds: Int = 3
    ) {
        (self.replicas, self.edits, self.syncEvery, self.concurrency, self.timeLimit, self.maximumCatchUpRounds) =
            (replicas, edits, syncEvery, concurrency, timeLimit, maximumCatchUpRounds)
    }

    /// What a run measured, and what went wrong (nothing, when the replicas converged with
    /// every edit and the remote passes `git fsck --strict`).
    public struct Figures: Sendable, CustomStringConvertible {
        public var editSeconds = 0.0, convergenceSeconds = 0.0
        /// Starting the server before, and checking the remote after (`git fsck --strict`).
        public var setupSeconds = 0.0, checkSeconds = 0.0
        /// Syncs that pushed or found nothing to push, syncs that lost every push race
        /// (and were tried again), and push attempts beyond the first of each sync.
        public var syncs = 0, rejectedSyncs = 0, pushRetries = 0
        /// Rounds of catch-up syncs it took until every replica held the remote's tree.
        public var catchUpRounds = 0
        /// The remote as `git count-objects -v` counts it.
        public var remoteKiB = 0, packs = 0, looseObjects = 0
        public var problems: [String] = []

        public var description: String {
            """
            replicas converged in \(String(format: "%.1f", convergenceSeconds)) s \
            (edits and syncs \(String(format: "%.1f", editSeconds)) s, \(catchUpRounds) catch-up round(s)); \
            setup \(String(format: "%.1f", setupSeconds)) s, checks \(String(format: "%.1f", checkSeconds)) s; \
            syncs \(syncs), push retries \(pushRetries), syncs that lost every race \(rejectedSyncs); \
            remote \(remoteKiB) KiB in \(packs) pack(s) and \(looseObjects) loose object(s)\
            \(problems.isEmpty ? "" : "\nproblems:\n" + problemSummary)
            """
        }

        /// The first ten problems, and how many more there were.
        public var problemSummary: String {
            (problems.prefix(10) + (problems.count > 10 ? ["... and \(problems.count - 10) more"] : []))
                .joined(separator: "\n")
        }
    }

    /// Runs the swarm in `folder` (the remote, the server's files and every replica's store).
    public func run(in folder: String) async throws -> Figures {
        let remote = folder + "/remote.git", settingUp = Date()
        for arguments in [["init", "--bare", "-q", "-b", "main", remote], ["--git-dir", remote, "config", "http.receivepack", "true"]] {
            let result = try await git(arguments)
            guard result.status == 0 else { throw SwarmFailure("git \(arguments.joined(separator: " ")): \(result.stderr)") }
        }
        let server = try await SmartHTTPServer(repositories: folder, folder: folder + "/http")
        defer { server.process.stop() }
        let url = server.url("remote.git")
        let started = Date(), deadline = started.addingTimeInterval(timeLimit)
        var figures = Figures()
        figures.setupSeconds = started.timeIntervalSince(settingUp)

        // Every replica makes its edits, syncing as it goes.
        let stores = (0..<replicas).map { (index: $0, path: folder + "/replica-\($0)") }
        figures.add(await runReplicas(stores, url: url, edits: edits, deadline: deadline))
        figures.editSeconds = Date().timeIntervalSince(started)

        // Then each syncs until it holds the remote's tree; after the first round, none should lag.
        var lagging = stores
        while !lagging.isEmpty, figures.problems.isEmpty, figures.catchUpRounds < maximumCatchUpRounds, Date() < deadline {
            figures.catchUpRounds += 1
            figures.add(await runReplicas(lagging, url: url, edits: 0, deadline: deadline))
            let head = try await tree(of: remote)
            var stillLagging: [(index: Int, path: String)] = []
            for store in lagging where try await tree(of: store.path) != head { stillLagging.append(store) }
            lagging = stillLagging
        }
        figures.convergenceSeconds = Date().timeIntervalSince(started)
        if !lagging.isEmpty {
            figures.problems.append(
                "\(lagging.count) replica(s) never held the remote's tree in \(figures.catchUpRounds) catch-up round(s): "
                    + lagging.prefix(5).map(\.path).joined(separator: ", "))
        }
        try await check(remote, holdsEveryEditOf: stores.count, into: &figures)
        figures.checkSeconds = Date().timeIntervalSince(started) - figures.convergenceSeconds
        return figures
    }

    /// Runs one replica process per store, `concurrency` at a time, starting none after the
    /// deadline; a process that fails is a problem, with what it said, and so is one never
    /// started.
    private func runReplicas(_ stores: [(index: Int, path: String)], url: String, edits: Int, deadline: Date) async -> Figures {
        let writer = productsFolder() + "/forkstore-stress-writer"
        return await withTaskGroup(of: Figures.self) { group in
            var pending = stores[...]
            func startNext() {
                guard let (index, path) = pending.popFirst() else { return }
                let arguments = [
                    "replica", path, url, "r\(index)", String(edits), String(syncEvery),
                    String(max(1, deadline.timeIntervalSinceNow)),
                ]
                group.addTask {
                    var figures = Figures()
                    do {
                        let result = try await ForkStoreTestSupport.run(writer, arguments)
                        figures.count(result.stdout)
                        if result.status != 0 {
                            figures.problems.append("replica \(index) exited with \(result.status): \(result.stderr.suffix(600))")
                        }
                    } catch {
                        figures.problems.append("replica \(index) did not start: \(error)")
                    }
                    return figures
                }
            }
            for _ in 0..<concurrency { startNext() }
            var total = Figures()
            for await figures in group {
                total.add(figures)
                if Date() < deadline { startNext() }
            }
            if !pending.isEmpty {
                total.problems.append("\(pending.count) replica(s) not started: the swarm's \(Int(timeLimit)) s had passed")
            }
            return total
        }
    }

    /// Every replica's every edit is on the remote's `main`, and `git fsck --strict` finds
    /// nothing wrong there; the remote's size goes into the figures.
    private func check(_ remote: String, holdsEveryEditOf replicaCount: Int, into figures: inout Figures) async throws {
        let shown = try await git("--git-dir", remote, "show", "main:value.json")
        let items = shown.status == 0 ? (try? JSONDecoder().decode(Tally.self, from: Data(shown.stdout.utf8)))?.items ?? [] : []
        let expected = Set((0..<replicaCount).flatMap { replica in (0..<edits).map { "r\(replica)-\($0)" } })
        let lost = expected.subtracting(items)
        if !lost.isEmpty {
            figures.problems.append("\(lost.count) edit(s) missing on the remote, e.g. \(lost.sorted().prefix(5).joined(separator: ", "))")
        }
        let fsck = try await git("--git-dir", remote, "fsck", "--strict")
        if fsck.status != 0 { figures.problems.append("git fsck --strict on the remote: \(fsck.stdout)\(fsck.stderr)") }
        let counts = try await git("--git-dir", remote, "count-objects", "-v").stdout
        func count(_ name: String) -> Int {
            counts.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.flatMap { Int($0.dropFirst(name.count + 2)) } ?? 0
        }
        (figures.remoteKiB, figures.packs, figures.looseObjects) = (count("size") + count("size-pack"), count("packs"), count("count"))
    }

    /// The tree of a repository's `main`, as git reads it.
    private func tree(of repository: String) async throws -> String {
        try await git("--git-dir", repository, "rev-parse", "--verify", "-q", "refs/heads/main^{tree}").stdout
    }
}

extension ReplicaSwarm.Figures {
    /// Counts the syncs a replica printed ("done synced ATTEMPTS", "done rejected ATTEMPTS").
    mutating func count(_ output: String) {
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 3, words[0] == "done", let attempts = Int(words[2]) else { continue }
            if words[1] == "rejected" { rejectedSyncs += 1 } else { syncs += 1 }
            pushRetries += max(0, attempts - 1)
        }
    }

    mutating func add(_ other: Self) {
        syncs += other.syncs
        rejectedSyncs += other.rejectedSyncs
        pushRetries += other.pushRetries
        problems += other.problems
    }
}

/// A step of the swarm's setup that failed.
public struct SwarmFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
