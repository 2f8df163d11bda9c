extension CommandTable {
  /// Every command storesim has.
  static let standard = CommandTable(
    commands: [
      CommandSpec(InitCommand.self), CommandSpec(ValidateCommand.self), CommandSpec(ProductsCommand.self),
      CommandSpec(SettingsCommand.self), CommandSpec(ResetCommand.self), CommandSpec(FamilyCommand.self),
      CommandSpec(ImportCommand.self),
      CommandSpec(PopulateCommand.self),
    ] + purchaseCommands + subscriptionCommands + [CommandSpec(NowCommand.self)] + inspectCommands + [
      CommandSpec(DeleteCommand.self), CommandSpec(TimelineCommand.self), CommandSpec(ReportCommand.self),
      CommandSpec(RunCommand.self),
      CommandSpec(ShellCommand.self), CommandSpec(MCPCommand.self), CommandSpec(ManageCommand.self),
      CommandSpec(ServeCommand.self),
      CommandSpec(APICommand.self), CommandSpec(TokenCommand.self), CommandSpec(ConsumptionCommand.self),
      CommandSpec(ExtendCommand.self), CommandSpec(ExtendAllCommand.self), CommandSpec(CompletionsCommand.self),
      CommandSpec(VersionCommand.self),
    ])
}
