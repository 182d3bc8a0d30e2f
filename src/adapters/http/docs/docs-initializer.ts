/**
 * The page's own script, served as a file because the page allows no inline script: Swagger UI
 * over the document whose URL the page names. Plain ES2015 for the browser, never run by Node.
 */
export const DOCS_INITIALIZER = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    domNode: root,
    deepLinking: true,
    displayOperationId: true,
    // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
})();
`;
