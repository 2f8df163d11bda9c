import Foundation
import Testing

@testable import StoreSimCLI

/// Issue 25: the install script, the CI corpus step and the README's runnable examples.
@Suite struct ScriptsTests {
  static let root = CLIHarness.projectRoot.path

  /// Runs a script with bash; returns its exit code and standard output.
  func bash(_ arguments: [String], environment: [String: String] = [:]) throws -> (code: Int32, out: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = arguments
    process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()].merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  // MARK: - 10. Scripts/install.sh

  @Test func installPutsTheBinaryAndCompletionsWhereShellsFindThemAndUninstallRemovesThem() throws {
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let cli = try CLIHarness()
    // A stand-in for the built binary: answers --version and completions.
    let fake = cli.folder + "/fake-storesim"
    try "#!/bin/bash\nif [ \"$1\" = --version ]; then echo 'storesim 0.1.0'; else echo \"# $2 completion\"; fi\n"
      .write(toFile: fake, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake)
    let prefix = cli.folder + "/prefix"
    let installed = try bash(
      ["\(Self.root)/Scripts/install.sh", "--prefix", prefix], environment: ["STORESIM_BINARY": fake])
    #expect(installed.code == 0)
    #expect(installed.out.contains("installed storesim 0.1.0 as \(prefix)/bin/storesim"))
    #expect(installed.out.contains("is not on your PATH"))
    let files = [
      "bin/storesim": "storesim 0.1.0", "share/bash-completion/completions/storesim": "# bash completion",
      "share/fish/vendor_completions.d/storesim.fish": "# fish completion",
      "share/zsh/site-functions/_storesim": "# zsh completion",
    ]
    for (path, _) in files { #expect(FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path)") }
    for (path, text) in files where path.hasPrefix("share") {
      #expect(try String(contentsOfFile: prefix + "/" + path, encoding: .utf8) == text + "\n")
    }
    #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/storesim"))
    let removed = try bash(["\(Self.root)/Scripts/install.sh", "--uninstall", "--prefix", prefix])
    #expect(removed.code == 0)
    for (path, _) in files { #expect(!FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path)") }
    #expect(try bash(["\(Self.root)/Scripts/install.sh", "--prefx", prefix]).code == 64)
  }

  // MARK: - 12. The corpus step says when it is skipped

  @Test func theCorpusCheckSaysInOneLineWhenTheCorpusIsAbsent() throws {
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let r = try bash(["\(Self.root)/Scripts/corpus_check.sh", "/bin/false", "/no/such/corpus"])
    #expect(r.code == 0)
    #expect(
      r.out
        == "== corpus: skipped: /no/such/corpus is absent (the real .storekit files live beside the checkout, not in it)\n"
    )
    let ci = try String(contentsOfFile: Self.root + "/.ci/run", encoding: .utf8)
    #expect(ci.contains("Scripts/corpus_check.sh \"$BIN\" ../shared/corpus/storekit"))
  }

  // MARK: - 11. The README's and docs' runnable examples are marked, and CI runs them

  @Test func theReadmeAndDocsMarkTheirRunnableExamplesAndCIRunsThem() throws {
    let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
    var text = readme
    for page in ["docs/scenarios.md", "docs/server.md", "docs/storesimkit.md"] {
      text += try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
    }
    let fences = text.split(separator: "\n").filter { $0.hasPrefix("```") && $0 != "```" }.map(String.init)
    #expect(fences.filter { $0 == "```sh" }.count >= 3, "\(fences)")
    #expect(readme.contains("```sh"), "the README's set-up commands run")
    #expect(fences.contains("```python"))
    #expect(fences.contains("```storesim"))
    #expect(fences.contains("```swift file=Package.swift"))
    #expect(fences.contains { $0.hasPrefix("```swift file=Tests/") })
    #expect(readme.contains("Scripts/install.sh --uninstall"))
    let ci = try String(contentsOfFile: Self.root + "/.ci/run", encoding: .utf8)
    #expect(ci.contains("Scripts/readme_examples.py \"$BIN\""))
  }
}
