import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The socket plumbing under `HTTPClient` and the server (with `SocketAddress`; deadlines are `WaitDeadline`s).

/// Unqualified names for the C functions the enum's own `connect`/`send` shadow.
package enum Glue {
  package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
      Glibc.connect(fd, address, length)
    #else
      Darwin.connect(fd, address, length)
    #endif
  }
  package static func send(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
      Glibc.send(fd, bytes, count, flags)
    #else
      Darwin.send(fd, bytes, count, flags)
    #endif
  }
  package static func recv(_ fd: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
      Glibc.recv(fd, bytes, count, flags)
    #else
      Darwin.recv(fd, bytes, count, flags)
    #endif
  }
}
