import Foundation
import StoreSimCLI

exit(CLI.run(Array(CommandLine.arguments.dropFirst()), environment: .live()))
