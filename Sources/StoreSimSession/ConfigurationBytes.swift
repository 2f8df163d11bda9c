import Foundation

/// The bytes of a `.storekit` file: the one place a configuration file is read, by every front
/// door (the CLI's `init`, `validate` and signing commands, the configuration-reload rule of
/// `SessionWork`, StoreSimKit's `SKTestSession(contentsOf:)`), with one size limit.
package enum ConfigurationBytes {
  /// Largest configuration read; real files are a few kilobytes.
  package static let maximumSize = 32 * 1024 * 1024

  /// Why a configuration file could not be read.
  package enum Failure: Error, Equatable {
    /// Nothing is at the path, or it cannot be opened.
    case unreadable
    /// The file is there but its permissions refuse reading.
    case permissionDenied
    /// A folder, a device or anything but a regular file.
    case notAFile
    /// Larger than `maximumSize`.
    case tooLarge
  }

  /// Reads the file at `path` whole, refusing anything but a regular file of at most
  /// `maximumSize` bytes.
  package static func read(_ path: String) throws(Failure) -> Data {
    var info = stat()
    guard stat(path, &info) == 0 else { throw errno == EACCES ? .permissionDenied : .unreadable }
    guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile }
    guard Int(info.st_size) <= maximumSize else { throw .tooLarge }
    guard access(path, R_OK) == 0 else { throw errno == EACCES ? .permissionDenied : .unreadable }
    guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: maximumSize + 1)) ?? Data()
    guard data.count <= maximumSize else { throw .tooLarge }
    return data
  }
}
