import type { Rule } from 'eslint';

/** The rule of doc-comment-placement.js, typed for the tests that run it. */
declare const docCommentPlacement: Rule.RuleModule;
export default docCommentPlacement;
