import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What tells a file apart from its next version: device, inode, size and change time.
package struct FileIdentity: Equatable, Sendable {
  package var device: UInt64
  package var inode: UInt64
  package var size: Int64
  package var seconds: Int
  package var nanoseconds: Int

  package init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    self.init(info)
  }

  /// The identity of an open file.
  package init?(descriptor: Int32) {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    self.init(info)
  }

  private init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    #if canImport(Darwin)
      seconds = info.st_ctimespec.tv_sec
      nanoseconds = info.st_ctimespec.tv_nsec
    #else
      seconds = info.st_ctim.tv_sec
      nanoseconds = info.st_ctim.tv_nsec
    #endif
  }
}
