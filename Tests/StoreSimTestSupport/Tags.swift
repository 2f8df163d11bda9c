import Testing

/// Tests of rules tagged [inf] in `docs/rules.md` carry the `.inferred` tag, so they can be found
/// and corrected when someone verifies them on real StoreKit.
extension Tag {
  /// The rule rests on an inference ([inf] in `docs/rules.md`).
  @Tag static var inferred: Self
}
