// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "hearclear",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hearclear-server", targets: ["hearclear-server"]),
        .executable(name: "hearclear", targets: ["hearclear"]),
        .library(name: "HearClearCore", targets: ["HearClearCore"]),
        // Loaded by the client at run time (dlopen), never linked: see HTTPTransport.
        .library(name: "HearClearTransport", type: .dynamic, targets: ["HearClearTransport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Wire types of API v1, level arithmetic and the label scale: shared by server and client.
        .target(name: "HearClearCore"),
        // The analysis rules (spikes, length, references, outlier verdicts, status, cells), once,
        // knowing no store: the stores fetch what a rule needs and save what it decides.
        // Also the samples blob both stores keep (SampleColumns), deflated by zlib.
        // Optimized in debug builds too (as LevelMeter is, below).
        .target(name: "HearClearAnalysis", dependencies: ["HearClearCore", "CZlib"], swiftSettings: optimizedInDebug),
        // zlib's C API (zlib1g-dev): the samples blob's compression.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The numbered SQL files of each store, shipped as resources so an installed binary finds them too.
        .target(
            name: "HearClearMigrations",
            path: "Migrations",
            resources: [.copy("sqlite"), .copy("postgres")]
        ),
        .target(
            name: "HearClearServer",
            dependencies: [
                "HearClearCore",
                "HearClearAnalysis",
                "HearClearMigrations",
                // The browser's meter runs the filters LevelMeter designs (GET /api/v2/meter-design).
                "LevelMeter",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the WAL checkpointer's flush through SQLite's own file handle.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Its thread pool, for work too long for the request's task (a meter design's fit).
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Templates")]
        ),
        .executableTarget(
            name: "hearclear-server",
            dependencies: [
                "HearClearAnalysis",
                "HearClearCore",
                "HearClearServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // Per-interval average and peak levels, A-weighting, loud events, speech and music: the meter, no I/O.
        // Optimized in debug builds too (docs/architecture.md, Tests).
        .target(
            name: "LevelMeter", dependencies: ["HearClearCore", "CFFTW"], resources: [.copy("Resources/sound-classes-v33.json")],
            swiftSettings: optimizedInDebug
        ),
        // FFTW's C API, single precision (libfftw3-dev): the sound features' transforms.
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        // ALSA's C API (libasound2-dev).
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // libsndfile's C API (libsndfile1-dev): WAV in all its forms, FLAC, Ogg Vorbis, Opus, MP3.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // Where audio comes from: the microphone through ALSA, or an audio file.
        .target(name: "AudioInput", dependencies: ["HearClearCore", "CALSA", "CSndFile"]),
        // The sampler's plumbing: config, the offline outbox, the API client, terminal drawing.
        .target(
            name: "HearClearClient",
            dependencies: [
                "HearClearCore",
                "LevelMeter",
                "TransportWire",
                "CZlib",
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        // The documents the client and its HTTP library exchange (Foundation only).
        .target(name: "TransportWire"),
        // HTTP through URLSession (FoundationNetworking, libcurl), built as a library of its own.
        .target(name: "HearClearTransport", dependencies: ["TransportWire"]),
        .executableTarget(
            name: "hearclear",
            dependencies: [
                "HearClearClient",
                "LevelMeter",
                "AudioInput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Raw HTTP/1.1 on loopback: the benchmarks' load generator, and tests' misbehaving clients.
        .target(name: "LoopbackHTTP"),
        // make bench's reference for per-request cost: Hummingbird alone, answering /healthz.
        .executableTarget(name: "bare-hummingbird", dependencies: [.product(name: "Hummingbird", package: "hummingbird")]),
        // make bench: every case against a reference measured in the same run.
        .executableTarget(
            name: "hearclear-bench",
            dependencies: [
                "HearClearAnalysis",
                "HearClearClient",
                "HearClearServer",
                "LoopbackHTTP",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "HearClearCoreTests", dependencies: ["HearClearCore"]),
        // The bench's report, whose executable module the tests import.
        .testTarget(name: "BenchTests", dependencies: ["hearclear-bench"]),
        // Test signals and WAV files, computed rather than recorded.
        .target(name: "TestSignals", path: "Tests/TestSignals"),
        // The private PostgreSQL cluster of `make test`: a database per test, psql.
        .target(
            name: "TestCluster",
            dependencies: ["LoopbackHTTP", .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system")],
            path: "Tests/TestCluster"),
        .testTarget(name: "LevelMeterTests", dependencies: ["LevelMeter", "AudioInput", "TestSignals", "HearClearAnalysis"]),
        .testTarget(name: "HearClearClientTests", dependencies: ["HearClearClient", "LevelMeter", "TestSignals"]),
        // Runs the built executables as people do; `swift build --build-tests` builds them first.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["HearClearCore", "HearClearServer", "TestSignals", "TestCluster", "LoopbackHTTP", "LevelMeter", "AudioInput",
                .product(name: "Subprocess", package: "swift-subprocess"), .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "HearClearServerTests",
            dependencies: [
                "HearClearServer",
                "HearClearAnalysis",
                "LevelMeter",
                "TestCluster",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Read from the source tree, so that re-recording rewrites the files in git.
            exclude: ["Snapshots"]
        ),
    ]
)

/// The targets whose loops run over every sample or every second are compiled with optimization in
/// debug builds too: unoptimized, `hearclear analyze` takes about 65 times as long and storing a
/// check-in about 3 times, and `make test` spends minutes of its two cores there (docs/architecture.md,
/// Tests). Not HearClearCore: it is a library product, and a package whose products carry unsafe
/// flags cannot be depended on.
var optimizedInDebug: [SwiftSetting] { [.unsafeFlags(["-O"], .when(configuration: .debug))] }
