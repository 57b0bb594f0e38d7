/** Every command id in one place; package.json `contributes.commands` lists the public ones. */
export const Commands = {
  copyRecoveryContext: 'beadsRecovery.copyRecoveryContext',
  injectRecoveryContext: 'beadsRecovery.injectRecoveryContext',
  refresh: 'beadsRecovery.refresh',
  showLog: 'beadsRecovery.showLog',
  setCliPath: 'beadsRecovery.setCliPath',
  openWalkthrough: 'beadsRecovery.openWalkthrough',
  /** The picture of a walkthrough step, opened in an editor: VS Code hides a step's media in an editor narrower than 950 px. */
  showWalkthroughImage: 'beadsRecovery.showWalkthroughImage',
  checkpoint: 'beadsRecovery.checkpoint',
  claim: 'beadsRecovery.claim',
  close: 'beadsRecovery.close',
  focusIssue: 'beadsRecovery.focusIssue',
  retryPendingWrites: 'beadsRecovery.retryPendingWrites',
  /** The writes beads refused, with their words and beads' reason, in a read-only editor. */
  showRefusedWrites: 'beadsRecovery.showRefusedWrites',
  /** Forgets writes beads refused, after asking. */
  discardRefusedWrites: 'beadsRecovery.discardRefusedWrites',
  installAgentHooks: 'beadsRecovery.installAgentHooks',
  uninstallAgentHooks: 'beadsRecovery.uninstallAgentHooks',
  addAgentInstructions: 'beadsRecovery.addAgentInstructions',
  showChatAnswer: 'beadsRecovery.showChatAnswer',
} as const;

/** The getting-started walkthrough (package.json `contributes.walkthroughs`), as `<publisher>.<name>#<id>`. */
export const WALKTHROUGH_ID = 'beads-recovery.beads-recovery#gettingStarted';
