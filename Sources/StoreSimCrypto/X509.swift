/// X.509 v3 certificates (RFC 5280) with P-256 keys, signed with ecdsa-with-SHA256: written for
/// a session's chain and read back from a JWS `x5c` header.
package struct X509Certificate: Hashable, Sendable {
  /// The whole certificate, DER.
  package let der: [UInt8]
  /// The DER of `tbsCertificate`, the signed part.
  package let tbs: [UInt8]
  package let serial: [UInt8]
  /// The DER of the issuer and subject `Name`s.
  package let issuer: [UInt8]
  package let subject: [UInt8]
  /// Validity, seconds since 1970.
  package let notBefore: Int64
  package let notAfter: Int64
  package let publicKey: P256.PublicKey
  /// Extension OIDs with their criticality and DER value.
  package let extensions: [Extension]
  package let signature: P256.Signature

  package struct Extension: Hashable, Sendable {
    package let oid: String
    package let critical: Bool
    package let value: [UInt8]

    package init(oid: String, critical: Bool, value: [UInt8]) {
      self.oid = oid
      self.critical = critical
      self.value = value
    }
  }

  /// Object identifiers of the extensions storesim writes.
  package enum OID {
    package static let basicConstraints = "2.5.29.19"
    package static let keyUsage = "2.5.29.15"
    package static let subjectKeyIdentifier = "2.5.29.14"
    package static let authorityKeyIdentifier = "2.5.29.35"
    package static let subjectAltName = "2.5.29.17"
    /// Apple Worldwide Developer Relations, on the intermediate Apple's verifier accepts.
    package static let appleWWDRIntermediate = "1.2.840.113635.100.6.2.1"
    /// Receipt Signing, on the leaf Apple's verifier accepts.
    package static let appleReceiptSigning = "1.2.840.113635.100.6.11.1"
    static let commonName = "2.5.4.3"
    static let organization = "2.5.4.10"
    static let organizationalUnit = "2.5.4.11"
    static let country = "2.5.4.6"
  }

  /// Whether `issuerKey` signed this certificate.
  package func isSigned(by issuerKey: P256.PublicKey) -> Bool { issuerKey.isValidSignature(signature, for: tbs) }

  package func hasExtension(_ oid: String) -> Bool { extensions.contains { $0.oid == oid } }

  package var pem: String { PEM.encode(der, label: "CERTIFICATE") }
}

extension X509Certificate {
  /// Writes and signs a certificate.
  package init(
    serial: Int, issuer: [UInt8], subject: [UInt8], notBefore: Int64, notAfter: Int64,
    publicKey: P256.PublicKey, extensions: [Extension], signedBy issuerKey: P256.PrivateKey
  ) {
    let algorithm = DER.sequence([DER.oid(KeyOID.ecdsaWithSHA256)])
    let extensionsDER = extensions.map { e in
      DER.sequence([DER.oid(e.oid)] + (e.critical ? [[0x01, 0x01, 0xFF]] : []) + [DER.octetString(e.value)])
    }
    let tbs = DER.sequence([
      DER.element(.context0, DER.integer(2)),
      DER.integer(serial),
      algorithm,
      issuer,
      DER.sequence([X509Certificate.time(notBefore), X509Certificate.time(notAfter)]),
      subject,
      publicKey.spkiDERRepresentation,
      DER.element(.context3, DER.sequence(extensionsDER)),
    ])
    let signature = issuerKey.signature(for: tbs)
    let der = DER.sequence([tbs, algorithm, DER.bitString(signature.derRepresentation)])
    // Reading back what was written cannot fail; a failure here is a defect of this file.
    self = try! X509Certificate(der: der)
  }

  /// A `Name` of (OID, value) attributes, each in its own RDN; country as PrintableString.
  package static func name(_ attributes: [(oid: String, value: String)]) -> [UInt8] {
    DER.sequence(
      attributes.map { a in
        let tag: DER.Tag = a.oid == OID.country ? .printableString : .utf8String
        return DER.element(.set, DER.sequence([DER.oid(a.oid), DER.element(tag, Array(a.value.utf8))]))
      })
  }

  package static func name(
    commonName: String, organization: String, unit: String? = nil, country: String? = nil
  )
    -> [UInt8]
  {
    var attributes = [(OID.commonName, commonName)]
    if let unit { attributes.append((OID.organizationalUnit, unit)) }
    attributes.append((OID.organization, organization))
    if let country { attributes.append((OID.country, country)) }
    return name(attributes)
  }

  /// UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5).
  static func time(_ seconds: Int64) -> [UInt8] {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let rest = seconds - days * 86_400
    let (year, month, day) = CivilDays.date(fromDays: days)
    func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let clock = two(month) + two(day) + two(rest / 3600) + two(rest / 60 % 60) + two(rest % 60) + "Z"
    if year >= 1950 && year < 2050 { return DER.element(.utcTime, Array((two(year % 100) + clock).utf8)) }
    return DER.element(.generalizedTime, Array((String(year) + clock).utf8))
  }

  /// Reads a UTCTime or GeneralizedTime.
  static func readTime(_ reader: inout DER.Reader) throws(DER.Failure) -> Int64 {
    let (tag, contents, _) = try reader.readAny()
    let text = contents.remainingBytes
    let digits: Int
    switch tag {
    case DER.Tag.utcTime.rawValue: digits = 12
    case DER.Tag.generalizedTime.rawValue: digits = 14
    default: throw DER.Failure(message: "expected a time")
    }
    guard text.count == digits + 1, text.last == UInt8(ascii: "Z"),
      text.dropLast().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { throw DER.Failure(message: "bad time") }
    let values = text.dropLast().map { Int64($0 - UInt8(ascii: "0")) }
    func number(_ at: Int, _ count: Int) -> Int64 { values[at..<(at + count)].reduce(0) { $0 * 10 + $1 } }
    var year = digits == 12 ? number(0, 2) : number(0, 4)
    if digits == 12 { year += year < 50 ? 2000 : 1900 }
    let o = digits - 10
    let (month, day) = (number(o, 2), number(o + 2, 2))
    let days = CivilDays.days(year: year, month: month, day: day)
    // A real date is the date of its own day (no 13th month, no 30 February).
    guard (1...12).contains(month), day >= 1, CivilDays.date(fromDays: days) == (year, month, day) else {
      throw DER.Failure(message: "bad date")
    }
    return days * 86_400 + number(o + 4, 2) * 3600 + number(o + 6, 2) * 60 + number(o + 8, 2)
  }

  /// Reads a DER certificate with a P-256 key, signed with ecdsa-with-SHA256.
  package init(der: [UInt8]) throws(DER.Failure) {
    var outer = DER.Reader(der)
    var certificate = try outer.read(.sequence)
    guard outer.isAtEnd else { throw DER.Failure(message: "bytes after the certificate") }
    let (tbsTag, tbsContents, tbsRange) = try certificate.readAny()
    guard tbsTag == DER.Tag.sequence.rawValue else { throw DER.Failure(message: "expected tbsCertificate") }
    var algorithm = try certificate.read(.sequence)
    guard try algorithm.readOID() == KeyOID.ecdsaWithSHA256 else {
      throw DER.Failure(message: "not signed with ecdsa-with-SHA256")
    }
    guard let signature = P256.Signature(derRepresentation: try certificate.readBitString()), certificate.isAtEnd
    else { throw DER.Failure(message: "bad signature") }

    var tbs = tbsContents
    if tbs.peekTag == DER.Tag.context0.rawValue {
      var version = try tbs.read(.context0)
      guard try version.readSmallInteger() == 2 else { throw DER.Failure(message: "not an X.509 v3 certificate") }
    }
    let serial = try tbs.readUnsignedInteger()
    _ = try tbs.read(.sequence)
    let (issuerTag, _, issuerRange) = try tbs.readAny()
    var validity = try tbs.read(.sequence)
    let notBefore = try X509Certificate.readTime(&validity)
    let notAfter = try X509Certificate.readTime(&validity)
    let (subjectTag, _, subjectRange) = try tbs.readAny()
    guard issuerTag == DER.Tag.sequence.rawValue, subjectTag == DER.Tag.sequence.rawValue else {
      throw DER.Failure(message: "bad name")
    }
    let publicKey = try P256.PublicKey(spki: &tbs)
    var extensions: [Extension] = []
    while !tbs.isAtEnd {
      let (tag, contents, _) = try tbs.readAny()
      guard tag == DER.Tag.context3.rawValue else { continue }
      var wrapper = contents
      var list = try wrapper.read(.sequence)
      while !list.isAtEnd {
        var item = try list.read(.sequence)
        let oid = try item.readOID()
        var critical = false
        if item.peekTag == DER.Tag.boolean.rawValue { critical = try item.readBytes(.boolean) == [0xFF] }
        extensions.append(Extension(oid: oid, critical: critical, value: try item.readBytes(.octetString)))
      }
    }
    self.init(
      der: der, tbs: Array(der[tbsRange]), serial: serial, issuer: Array(der[issuerRange]),
      subject: Array(der[subjectRange]), notBefore: notBefore, notAfter: notAfter, publicKey: publicKey,
      extensions: extensions, signature: signature)
  }
}
