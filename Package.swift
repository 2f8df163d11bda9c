// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "storesim",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "storesim", targets: ["storesim"]),
    .library(name: "StoreSim", targets: ["StoreSim"]),
  ],
  dependencies: [],
  targets: [
    .target(name: "StoreSim"),
    .target(name: "StoreSimCLI", dependencies: ["StoreSim"]),
    .executableTarget(name: "storesim", dependencies: ["StoreSimCLI"]),
    .executableTarget(name: "storesim-bench", dependencies: ["StoreSim"]),
    .testTarget(
      name: "StoreSimTests",
      dependencies: ["StoreSim", "StoreSimCLI"],
      exclude: ["Golden"]
    ),
  ]
)
