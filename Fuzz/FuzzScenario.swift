// libFuzzer target: the scenario / command-line parser (line splitting, argument scanning,
// expectation syntax). Built by Scripts/fuzz.sh into the one fuzz binary.
import Foundation

public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let table = CommandTable.standard
  _ = try? ScenarioRunner.parse(text, file: "fuzz.storesim", table: table)
  for line in text.split(separator: "\n").prefix(20) {
    if let words = try? ScriptLineSplitter.split(String(line)) {
      _ = try? ArgumentScanner.scan(words, commands: table)
      if let first = words.first { _ = try? ValueParsing.duration(first); _ = try? ValueParsing.date(first) }
    }
  }
  return 0
}
