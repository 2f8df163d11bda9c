// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "storesim",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "storesim", targets: ["storesim"]),
    .library(name: "StoreSim", targets: ["StoreSim"]),
    .library(name: "StoreSimKit", targets: ["StoreSimKit"]),
    .library(name: "StoreSimKitTesting", targets: ["StoreSimKitTesting"]),
  ],
  dependencies: [],
  targets: [
    .target(name: "StoreSim"),
    .target(name: "StoreSimCLI", dependencies: ["StoreSim"]),
    .target(name: "StoreSimKit", dependencies: ["StoreSim"]),
    .target(name: "StoreSimKitTesting", dependencies: ["StoreSimKit"]),
    .executableTarget(name: "storesim", dependencies: ["StoreSimCLI"]),
    .executableTarget(name: "storesim-bench", dependencies: ["StoreSim"]),
    .testTarget(
      name: "StoreSimTests",
      dependencies: ["StoreSim", "StoreSimCLI"],
      exclude: ["Golden"]
    ),
    .testTarget(name: "StoreSimKitTests", dependencies: ["StoreSimKit", "StoreSimKitTesting", "StoreSimCLI"]),
  ]
)
