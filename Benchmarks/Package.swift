// swift-tools-version: 6.1
// Benchmarks live in their own package so the library and its tests build without
// package-benchmark. Run them with: bash scripts/benchmark.sh (from the repository root).
import PackageDescription

let package = Package(
    name: "ForkStoreBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ForkStore", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "MergeBenchmarks",
            dependencies: [
                .product(name: "ForkStoreMerge", package: "ForkStore"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "MergeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
