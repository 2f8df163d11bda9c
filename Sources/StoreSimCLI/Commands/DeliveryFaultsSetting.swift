import Foundation
import StoreSim

/// `settings delivery-faults seed=N [duplicates=P%] [reorder=DURATION] [delay=D|D1-D2]
/// [outage=DATE+DURATION ...] | off`: storesim's own delivery faults (never Apple's).
enum DeliveryFaultsSetting {
  static let form = "seed=N [duplicates=P%] [reorder=DURATION] [delay=D|D1-D2] [outage=DATE+DURATION]... | off"

  /// The faults the words set (nil for `off`); refused as a usage error before anything runs.
  static func parse(_ words: [String]) throws -> DeliveryFaults? {
    if words.count == 1 && words[0].lowercased() == "off" { return nil }
    guard !words.isEmpty else { throw usage("delivery-faults needs \(form)") }
    var faults: DeliveryFaults?
    var rest: [(String, String)] = []
    for word in words {
      let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2, !pair[1].isEmpty else {
        throw usage("delivery-faults takes NAME=VALUE words, not '\(word)'; write \(form)")
      }
      if pair[0].lowercased() == "seed" {
        guard let seed = UInt64(pair[1]) else { throw usage("seed must be a whole number, not '\(pair[1])'") }
        faults = DeliveryFaults(seed: seed)
      } else {
        rest.append((pair[0].lowercased(), pair[1]))
      }
    }
    guard var faults else { throw usage("delivery-faults needs a seed (seed=N): the same seed gives the same faults") }
    for (name, value) in rest {
      switch name {
      case "duplicates":
        let digits = value.hasSuffix("%") ? String(value.dropLast()) : value
        guard let n = Int(digits), (0...100).contains(n) else {
          throw usage("duplicates must be a percentage from 0% to 100%, not '\(value)'")
        }
        faults.duplicatePercent = n
      case "reorder": faults.reorderWindow = try seconds(value, name)
      case "delay":
        let parts = value.split(separator: "-", maxSplits: 1).map(String.init)
        faults.delayMinimum = try seconds(parts[0], name)
        faults.delayMaximum = parts.count == 2 ? try seconds(parts[1], name) : faults.delayMinimum
        guard faults.delayMaximum >= faults.delayMinimum else {
          throw usage("delay '\(value)' ends before it starts; write D1-D2 with D1 <= D2")
        }
      case "outage":
        guard let plus = value.lastIndex(of: "+"), plus != value.startIndex else {
          throw usage("outage must be DATE+DURATION like 2026-01-02T00:00:00Z+6h, not '\(value)'")
        }
        let start = try ValueParsing.date(String(value[..<plus]))
        let length = try seconds(String(value[value.index(after: plus)...]), name)
        guard length > 0 else { throw usage("outage '\(value)' lasts no time") }
        faults.outages.append(DeliveryFaults.Outage(start: start, end: start.addingTimeInterval(length)))
      default:
        throw usage(
          Suggest.appending(
            to: "unknown delivery fault '\(name)'", for: name, in: ["seed", "duplicates", "reorder", "delay", "outage"])
        )
      }
    }
    return faults
  }

  /// A duration in whole seconds (no months: a fault's length is fixed).
  private static func seconds(_ text: String, _ name: String) throws -> TimeInterval {
    let d: TypedDuration
    do { d = try ValueParsing.duration(text) } catch {
      throw usage("\(name) must be a duration like 30min or 2h, not '\(text)'")
    }
    guard d.months == 0, d.seconds <= 365 * 86_400 else {
      throw usage("\(name) must be a duration of at most a year in s, min, h, d or w, not '\(text)'")
    }
    return d.seconds.rounded()
  }

  private static func usage(_ message: String) -> CLIError { CLIError.usage(message, command: "settings") }
}
