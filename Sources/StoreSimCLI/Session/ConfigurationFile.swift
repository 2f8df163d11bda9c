import Foundation
import StoreSim
import StoreSimSession

/// Reading `.storekit` files from disk (the core never sees a path).
enum ConfigurationFile {
  /// Largest configuration accepted; real files are a few kilobytes.
  static let maximumSize = ConfigurationBytes.maximumSize

  /// The file to read for a path: the path itself, or `Configuration.storekit` inside a
  /// `.storekit` package folder.
  static func contentPath(_ path: String, environment: CLIEnvironment) throws -> String {
    let absolute = try environment.resolve(path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
      throw CLIError.noInput("no such file: \(path)")
    }
    if isDirectory.boolValue {
      let inner = (absolute as NSString).appendingPathComponent("Configuration.storekit")
      guard FileManager.default.fileExists(atPath: inner) else {
        throw CLIError.noInput("\(path) is a folder without a Configuration.storekit inside")
      }
      return inner
    }
    return absolute
  }

  /// Reads the bytes of a file the user named.
  static func bytes(_ path: String, shownAs name: String) throws -> Data {
    do {
      return try ConfigurationBytes.read(path)
    } catch .permissionDenied {
      throw SystemError.error("cannot read \(name)", errno: EACCES)
    } catch .tooLarge {
      throw CLIError.data("\(name): file is larger than \(maximumSize / 1024 / 1024) MiB; not a StoreKit configuration")
    } catch {
      throw CLIError.noInput("cannot read \(name)")
    }
  }

  /// Loads a configuration, printing nothing; errors carry `file:line:column`.
  static func load(_ path: String, environment: CLIEnvironment) throws -> (LoadedConfiguration, Data) {
    let content = try contentPath(path, environment: environment)
    let data = try bytes(content, shownAs: path)
    do {
      return (try ConfigurationReader.read(data), data)
    } catch {
      throw CLIError.data(diagnostic(error.issue, file: path, severity: false))
    }
  }

  /// An issue as compiler-style text, `file:line:column: [severity: ]message (at path)`: with
  /// the severity word for a warning or error printed alone, without it inside an error message.
  static func diagnostic(_ issue: ConfigurationIssue, file: String, severity: Bool = true) -> String {
    var text = file
    if let location = issue.location { text += ":\(location)" }
    text += severity ? ": \(issue.severity.rawValue): \(issue.message)" : ": \(issue.message)"
    if !issue.path.isEmpty { text += " (at \(issue.path))" }
    return text
  }

  /// An issue as JSON (`validate --json`): severity, path, line, column, message.
  static func json(_ issue: ConfigurationIssue) -> JSONOutput {
    .object([
      "severity": .string(issue.severity.rawValue),
      "path": .string(issue.path),
      "line": issue.location.map { .int(Int64($0.line)) },
      "column": issue.location.map { .int(Int64($0.column)) },
      "message": .string(issue.message),
    ])
  }
}
