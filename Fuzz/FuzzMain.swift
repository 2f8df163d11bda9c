// The one libFuzzer entry point of the fuzz binary Scripts/fuzz.sh builds: every target is
// compiled into one program (one compile of the sources instead of one per target) and
// STORESIM_FUZZ_TARGET names the target a run exercises.
import Foundation

private let target: @Sendable (UnsafePointer<UInt8>, Int) -> CInt = {
  switch ProcessInfo.processInfo.environment["STORESIM_FUZZ_TARGET"] {
  case "configuration": return fuzzConfiguration
  case "scenario": return fuzzScenario
  case "session": return fuzzSession
  case "old-session": return fuzzOldSession
  case "http": return fuzzHTTPRequest
  case "signing": return fuzzSigning
  case "import": return fuzzImport
  case let name:
    FileHandle.standardError.write(
      Data(
        "STORESIM_FUZZ_TARGET must be configuration, scenario, session, old-session, http, signing or import (got \(name ?? "nothing"))\n"
          .utf8))
    exit(2)
  }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  target(data, size)
}
