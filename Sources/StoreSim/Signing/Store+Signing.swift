extension Store {
  /// Sets what the session signs with and the app's Apple id (`init --signing-key`, `--app-apple-id`).
  package mutating func useSigning(_ identity: SigningIdentity?, appAppleID: Int64?) {
    state.signing = identity
    state.appAppleID = appAppleID
  }

  /// Gives the session the team's In-App Purchase key (`init --api-key --key-id --issuer`), or
  /// takes it away (nil): offers signed with it are honoured as with the configuration's key.
  package mutating func useTeamKey(_ key: OfferKey?) {
    state.teamKey = key
  }

}
