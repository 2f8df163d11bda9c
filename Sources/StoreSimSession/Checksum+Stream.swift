extension Checksum64 {
  /// The checksum of bytes handed over in pieces: `finish()` is what `hash` gives for all of
  /// them at once, so a session file can be checksummed while it is written, without holding it.
  package struct Stream {
    private var a: UInt64
    private var b: UInt64
    private var c: UInt64
    private var d: UInt64
    /// Bytes not yet in a whole 32-byte block (fewer than 32).
    private var pending: [UInt8] = []
    /// How many bytes so far.
    package private(set) var count = 0

    package init(seed: UInt64 = 0) {
      a = seed ^ Checksum64.prime1
      b = seed ^ Checksum64.prime2
      c = seed ^ Checksum64.prime3
      d = seed ^ Checksum64.prime4
      pending.reserveCapacity(32)
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
      count += bytes.count
      guard let base = bytes.baseAddress else { return }
      let n = bytes.count
      var i = 0
      if !pending.isEmpty {
        let take = min(32 - pending.count, n)
        pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
        i = take
        guard pending.count == 32 else { return }
        pending.withUnsafeBytes { block($0.baseAddress!) }
        pending.removeAll(keepingCapacity: true)
      }
      while i + 32 <= n {
        block(base + i)
        i += 32
      }
      if i < n { pending.append(contentsOf: UnsafeRawBufferPointer(start: base + i, count: n - i)) }
    }

    private mutating func block(_ p: UnsafeRawPointer) {
      a = Checksum64.step(a, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 0, as: UInt64.self)))
      b = Checksum64.step(b, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
      c = Checksum64.step(c, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
      d = Checksum64.step(d, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
    }

    /// The checksum of every byte handed over (the tail as `hash` takes it).
    package func finish() -> UInt64 {
      var a = self.a
      var b = self.b
      pending.withUnsafeBytes { raw in
        let n = raw.count
        var i = 0
        while i + 8 <= n {
          a = Checksum64.step(a, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
          i += 8
        }
        if i < n {
          var tail: UInt64 = 0
          for k in 0..<(n - i) { tail |= UInt64(raw[i + k]) << (8 * UInt64(k)) }
          b = Checksum64.step(b, tail)
        }
      }
      var h = Checksum64.mix(a)
      h = Checksum64.mix(h ^ b)
      h = Checksum64.mix(h ^ c)
      h = Checksum64.mix(h ^ d)
      return Checksum64.mix(h ^ UInt64(count))
    }
  }
}
