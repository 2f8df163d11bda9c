import Foundation
import StoreSim

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a session lives on disk: the path as the user wrote it, and the file it names.
///
/// A symlinked session is the file the link points to: it is updated in place (the link is
/// kept) and both names take the same lock.
package struct SessionLocation {
  /// As the user wrote it (for messages).
  package var shown: String
  /// The file itself, absolute, with symlinks followed.
  package var file: String

  package var lockPath: String { file + ".lock" }

  /// A location for an absolute path that is already resolved (tests, tools).
  package init(resolvedFile file: String) {
    shown = file
    self.file = file
  }

  /// Checks and resolves a session path: an empty path or a folder is a usage error before
  /// anything is touched.
  /// `resolve` makes a path absolute (against the working directory, `~/` against the home).
  package init(shown: String, resolve: (String) -> String) throws {
    guard !shown.isEmpty else {
      throw SessionStoreError(
        .badPath, "the session path is empty; give a file with --session PATH or $STORESIM_SESSION")
    }
    self.shown = shown
    var path = resolve(shown)
    guard !path.hasSuffix("/") else {
      throw SessionStoreError(.badPath, "the session path \(shown) is a folder; give a file name")
    }
    // Follow symlinks of the last component (at most 32, like the kernel's own limit of 40).
    for _ in 0..<32 {
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { break }
      var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = readlink(path, &target, target.count - 1)
      guard n > 0 else { break }
      let destination = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      path =
        destination.hasPrefix("/")
        ? destination : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
    }
    var info = stat()
    if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
      throw SessionStoreError(.badPath, "the session path \(shown) is a folder; give a file name")
    }
    file = path
  }
}
