// libFuzzer target: old-format sessions (version 2: no checksums, so every byte reaches the
// state reader) used as the commands use them. The input is a state line; it is read under a
// version 2 header, and a state the reader accepts is listed, bought from and advanced by the
// CLI's own commands on a session in memory (`transactions`, `status`, `buy`, `advance`,
// `timeline --svg`). Any value a session holds must be refused on reading ("corrupt session")
// or work: a trap is a crash. Built by Scripts/fuzz.sh into the one fuzz binary.
import Foundation

public func fuzzOldSession(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  var file = Data(
    #"{"codec":"compact-1","configurationDigest":"0","configurationPath":"p","format":"storesim-session","version":2}"#
      .utf8)
  file.append(0x0A)
  file.append(data, count: size)
  guard let (_, state) = try? SessionFileFormat.decode(file) else { return 0 }
  let memory = MemorySession()
  memory.store = Store(state: state)
  let quiet = CLIEnvironment(writeOut: { _ in }, writeErr: { _ in }, currentDirectory: "/nonexistent")
  let product = state.configuration.products.first?.id ?? "none"
  for line in [
    ["transactions", "--json"], ["status", "--json"], ["timeline", "--svg"], ["buy", product], ["advance", "1mo"],
    ["transactions", "--signed"],
  ] {
    _ = CLI.run(line, environment: quiet, memory: memory)
  }
  return 0
}
