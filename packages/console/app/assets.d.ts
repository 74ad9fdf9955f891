/** Stylesheets imported for their effect: esbuild bundles them into the page's CSS. */
declare module "*.css";
