// The page entry imports its style sheet; esbuild bundles it into portal.css.
declare module '*.css';
