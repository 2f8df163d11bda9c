import Foundation

/// The real `.storekit` files of `../shared/corpus/storekit`, beside the clone (none when absent).
enum StoreKitCorpus {
  static let folder = Fixtures.projectRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/storekit")

  static var files: [URL] {
    ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
      .filter { $0.pathExtension == "storekit" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
  }

  static var isPresent: Bool { !files.isEmpty }
}
