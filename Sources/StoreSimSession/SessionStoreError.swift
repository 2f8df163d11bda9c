#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why the session store refused: what went wrong, in one line, and its kind, which the
/// command line maps onto its exit codes (a usage error 64, bad data 65, no input 66, cannot
/// create 73, input/output 74, permission denied 77, a failure 1).
package struct SessionStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  package enum Kind: Sendable, Equatable {
    /// The path given is not usable (empty, a folder, not a regular file).
    case badPath
    /// The session file is damaged, not a session, or newer than this storesim.
    case badData
    /// There is no session at that path, or it cannot be read.
    case noInput
    /// A file or folder cannot be created.
    case cannotCreate
    /// Disk full, quota, device errors.
    case ioError
    case permissionDenied
    /// Anything else (the state could not be encoded).
    case failed
  }

  package var kind: Kind
  package var message: String
  package var description: String { message }

  package init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// A failed file operation: `what` names it, the system gives the reason (`strerror`), and
  /// `errno` gives the kind.
  package static func system(_ what: String, errno code: Int32) -> SessionStoreError {
    SessionStoreError(kind(ofErrno: code), "\(what): \(String(cString: strerror(code)))")
  }

  /// The kind of a failed file operation: permission denied, input/output error (disk full,
  /// quota, device errors), or a failure to create a file.
  package static func kind(ofErrno code: Int32) -> Kind {
    switch code {
    case EACCES, EPERM: return .permissionDenied
    case ENOSPC, EDQUOT, EIO, EFBIG: return .ioError
    default: return .cannotCreate
    }
  }
}
