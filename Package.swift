// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ForkStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ForkStore", targets: ["ForkStore"]),
        .library(name: "ForkStoreMerge", targets: ["ForkStoreMerge"]),
        .library(name: "ForkStoreMergeTesting", targets: ["ForkStoreMergeTesting"]),
        .library(name: "ForkStoreExchange", targets: ["ForkStoreExchange"]),
        .library(name: "ForkStoreQueries", targets: ["ForkStoreQueries"]),
        .library(name: "ForkStoreMigrationTesting", targets: ["ForkStoreMigrationTesting"]),
        .executable(name: "forknotes", targets: ["forknotes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // The C library. Only ForkStoreGit imports it.
        .systemLibrary(
            name: "CLibGit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"]), .brew(["libgit2"])]
        ),
        // libcurl, the HTTP client of Git LFS transfers. Only ForkStoreExchange imports it.
        // No pkgConfig: libcurl.pc names the system's library folder, and SwiftPM puts that
        // `-L` before libgit2's, so a build against a libgit2 beside the system's (scripts/
        // libgit2-1.8.sh) linked the system's instead. curl's headers are on the default path.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // zlib, for the pack format.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The pack format in pure Swift (no libgit2): object ids, the pack index reader and
        // writer, the pack writer and reader, deltas, roll-ups. `package` API only.
        // The lock every module uses (Locked), one that ThreadSanitizer sees.
        .target(name: "ForkStoreLocks"),
        .target(
            name: "ForkStorePack",
            dependencies: ["CZlib", "ForkStoreLocks", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Everything git below the engine: the libgit2 wrapper (LibGit2/, every libgit2 call
        // checked in one place) and the wire (Wire/: pkt-lines, send-pack, the socket stream),
        // over the pack format. `package` API only.
        .target(
            name: "ForkStoreGit",
            dependencies: ["CLibGit2", "ForkStoreLocks", "ForkStorePack", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The public library: stores, forks, commits, merging, history.
        .target(
            name: "ForkStore",
            dependencies: [
                "ForkStoreGit",
                "ForkStoreLocks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Built-in merge strategies and per-property merging: pure Swift, no git.
        .target(name: "ForkStoreMerge", dependencies: ["ForkStore"]),
        // The law-checking kit for strategies, for app test suites.
        .target(
            name: "ForkStoreMergeTesting",
            dependencies: [
                "ForkStoreMerge",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The migration-testing kit: history replay, fixtures, schema snapshots.
        .target(name: "ForkStoreMigrationTesting", dependencies: ["ForkStore"]),
        // Sync with git remotes, and assets over Git LFS (libcurl, Assets/HTTP/).
        .target(name: "ForkStoreExchange", dependencies: ["ForkStore", "ForkStoreLocks", "CCurl"]),
        // Indexed queries and live results over record collections: a SQLite cache (GRDB)
        // beside the repository, which stays the truth.
        .target(
            name: "ForkStoreQueries",
            dependencies: [
                "ForkStore",
                "ForkStoreLocks",
                "ForkStorePack",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The sample sync CLI.
        .executableTarget(
            name: "forknotes",
            dependencies: [
                "ForkStore",
                "ForkStoreMerge",
                "ForkStoreExchange",
                "ForkStoreQueries",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Samples/forknotes"
        ),
        // Shared by the tests and the stress writer: test resources, temporary folders, git CLI.
        .target(
            name: "ForkStoreTestSupport",
            dependencies: ["ForkStore", "ForkStoreLocks", "ForkStoreQueries"],
            path: "Tests/Support"
        ),
        // What both benchmark tables write: the record and the raw-libgit2 baseline write.
        .target(
            name: "BenchmarkSupport",
            dependencies: ["ForkStore", "ForkStoreGit"],
            path: "Benchmarks/Support"
        ),
        // Record collection benchmarks against a raw-libgit2 baseline, printed as a table.
        .executableTarget(
            name: "forkstore-record-benchmarks",
            dependencies: ["BenchmarkSupport", "ForkStore", "ForkStoreGit", "ForkStoreQueries"],
            path: "Benchmarks/RecordTable"
        ),
        // Sync benchmarks over a path, git daemon, smart HTTP and sshd, against raw libgit2 and
        // the git command line, printed as a table.
        .executableTarget(
            name: "forkstore-sync-benchmarks",
            dependencies: ["BenchmarkSupport", "ForkStore", "ForkStoreGit", "ForkStoreExchange", "ForkStoreQueries", "ForkStoreTestSupport"],
            path: "Benchmarks/SyncTable"
        ),
        // Asset transfer benchmarks through giftless beside `git lfs` and `curl`, printed as a
        // table; ForkStore's side runs in the stress writer.
        .executableTarget(
            name: "forkstore-asset-benchmarks",
            dependencies: [
                "ForkStore", "ForkStoreExchange", "ForkStoreTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/AssetTable"
        ),
        // The history horizon benchmark: disk before and after compaction beside a store that
        // holds the records once and `git gc`, and the time and extra disk compaction takes.
        .executableTarget(
            name: "forkstore-history-benchmarks",
            dependencies: ["BenchmarkSupport", "ForkStore", "ForkStoreGit", "CLibGit2", "ForkStoreTestSupport"],
            path: "Benchmarks/HistoryTable"
        ),
        // A writer process for the multi-process and crash tests, and the replicas of the swarm.
        .executableTarget(
            name: "forkstore-stress-writer",
            dependencies: ["ForkStore", "ForkStoreExchange", "ForkStoreLocks", "ForkStoreQueries", "ForkStoreTestSupport"],
            path: "Tests/StressWriter"
        ),
        // libFuzzer targets for every parser of outside bytes: one binary, the target chosen by
        // FORKSTORE_FUZZ_TARGET (built once, one link). Built with -sanitize=fuzzer by
        // scripts/fuzz.sh; a plain build makes a replay tool (forkstore-fuzz <target> <files>).
        .executableTarget(
            name: "forkstore-fuzz",
            dependencies: ["ForkStore", "ForkStoreGit", "ForkStoreExchange", "CLibFuzzer"],
            path: "Fuzz",
            exclude: ["Corpus", "CLibFuzzer", "README.md"]
        ),
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .testTarget(
            name: "ForkStoreTests",
            dependencies: ["ForkStore", "ForkStoreGit", "ForkStoreLocks", "ForkStoreTestSupport", "forkstore-stress-writer"]
        ),
        .testTarget(
            name: "ForkStorePackTests",
            dependencies: ["ForkStoreLocks", "ForkStorePack", "ForkStoreTestSupport"]
        ),
        .testTarget(
            name: "ForkStoreMergeTests",
            dependencies: ["ForkStoreMerge", "ForkStoreMergeTesting", "ForkStoreTestSupport"]
        ),
        // Built without reflection metadata, as some release builds are.
        .testTarget(
            name: "ForkStoreReflectionFreeTests",
            dependencies: ["ForkStoreMerge"],
            swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-reflection-metadata"])]
        ),
        .testTarget(
            name: "ForkStoreMigrationTests",
            dependencies: ["ForkStoreMigrationTesting", "ForkStoreTestSupport"]
        ),
        .testTarget(
            name: "ForkStoreExchangeTests",
            dependencies: ["ForkStoreExchange", "ForkStoreGit", "ForkStoreLocks", "ForkStoreTestSupport", "forkstore-stress-writer"]
        ),
        .testTarget(
            name: "ForkStoreQueriesTests",
            dependencies: ["ForkStoreQueries", "ForkStoreExchange", "ForkStoreLocks", "ForkStoreTestSupport", "forkstore-stress-writer"]
        ),
        .testTarget(
            name: "ForkNotesTests",
            dependencies: ["forknotes", "ForkStoreTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
