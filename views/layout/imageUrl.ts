import { createContext, useContext } from "react";

/**
 * Turns a picture's plain path ("/images/home/hero.svg") into the URL pages link: its content-hashed copy in the
 * build, cached for a year (renderPage provides assets.image). Without a provider, the plain path.
 * Widgets render apart from the page, so a page maps the pictures it passes to a widget before passing them.
 */
export const ImageUrlContext = createContext<(path: string) => string>((path) => path);

export const useImageUrl = () => useContext(ImageUrlContext);
