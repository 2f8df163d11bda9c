#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's limit on open files (RLIMIT_NOFILE), which bounds the connections a server can
/// hold: raising its soft value to the hard one is what any process may do.
package enum FileLimit {
  /// Raises the soft limit to the hard limit (capped at 1,048,576) and returns the soft limit
  /// in force afterwards.
  @discardableResult
  package static func raise() -> Int {
    var limit = rlimit()
    #if canImport(Glibc)
      let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
      let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return 1024 }
    let wanted = min(limit.rlim_max, 1 << 20)
    if limit.rlim_cur < wanted {
      var raised = limit
      raised.rlim_cur = wanted
      if setrlimit(resource, &raised) == 0 { limit = raised }
    }
    return Int(min(limit.rlim_cur, 1 << 30))
  }

  /// How many file descriptors the process has open (counted in /proc/self/fd or /dev/fd; 16
  /// when neither can be read).
  package static func inUse() -> Int {
    for folder in ["/proc/self/fd", "/dev/fd"] {
      // Less the folder's own descriptor.
      if let count = entries(in: folder) { return max(0, count - 1) }
    }
    return 16
  }

  /// How many entries a folder holds whose names do not start with a dot; nil when it cannot
  /// be read.
  package static func entries(in folder: String) -> Int? {
    guard let dir = opendir(folder) else { return nil }
    defer { closedir(dir) }
    var count = 0
    while let entry = readdir(dir) {
      // The name's first byte, read where it lies: a copy of `d_name` would read its whole
      // declared size, past the end of a short entry at the end of the directory's buffer.
      let first = UnsafeRawPointer(entry).load(fromByteOffset: nameOffset, as: UInt8.self)
      if first != UInt8(ascii: ".") { count += 1 }
    }
    return count
  }

  private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
}
