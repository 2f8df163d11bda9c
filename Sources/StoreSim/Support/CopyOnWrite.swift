/// A value's fields on the heap, shared by its copies: copying costs a reference count, and
/// the first change through a shared copy copies the fields first, so no other copy sees it.
///
/// The record types (`Transaction`, `Product`, `SubscriptionState`, `ServerNotification`) keep
/// one of these and forward each public property to `fields` with `_read` / `_modify`, which
/// reads and changes a field in place; those properties are generated from the records' `Fields`
/// (`*+Forwarding.swift`, `Scripts/generate-forwarding.sh`). Compared and hashed by the fields.
struct CopyOnWrite<Fields: Sendable & Hashable>: Hashable, @unchecked Sendable {
  // Sendable: the box is only changed while this value is its single owner.
  private final class Box {
    @exclusivity(unchecked) var fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  private var box: Box

  init(_ fields: Fields) { box = Box(fields) }

  var fields: Fields {
    _read { yield box.fields }
    _modify {
      if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
      yield &box.fields
    }
  }

  /// Reads a word of each cache line the fields take, so that the memory loads of several
  /// records overlap (`Store.warm`); the value only keeps the reads from being optimised away.
  func warmth() -> UInt {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
    let size = 16 + MemoryLayout<Fields>.size
    var sum: UInt = 0
    var offset = 0
    while offset + 8 <= size {
      sum &+= base.load(fromByteOffset: offset, as: UInt.self)
      offset += 64
    }
    return sum
  }

  /// Whether both values share one box (a copy not yet changed).
  func isSameBox(as other: CopyOnWrite) -> Bool { box === other.box }

  static func == (a: CopyOnWrite, b: CopyOnWrite) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

  func hash(into hasher: inout Hasher) { box.fields.hash(into: &hasher) }
}

extension CopyOnWrite: Codable where Fields: Codable {
  /// Encoded as the fields themselves.
  init(from decoder: any Decoder) throws { self.init(try Fields(from: decoder)) }

  func encode(to encoder: any Encoder) throws { try fields.encode(to: encoder) }
}
