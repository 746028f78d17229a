/**
 * Posts of a form this instance is deciding. The same form posted again by the same visitor with the same content
 * while its first post is under way (a double click, a form sent twice without JavaScript, a second tab) joins the
 * first: it is answered with the first post's outcome instead of queueing behind the first's locks to decide the same
 * thing again (measured in the rush: double submits were the slowest holds after the code's). A post with other
 * content, from someone else, or to another instance is decided by the database as before (the form's unique id,
 * then its row under its lock). Kept per app (`owner`): two apps in one process are two instances.
 */
interface Post {
  who: string;
  content: string;
  outcome: Promise<unknown>;
}

const postsByOwner = new WeakMap<object, Map<string, Post>>();

export function samePost<T>(owner: object, post: { form: string; who: string; content: string }, decide: () => Promise<T>): { outcome: Promise<T>; joined: boolean } {
  let posts = postsByOwner.get(owner);
  if (!posts) postsByOwner.set(owner, (posts = new Map<string, Post>()));
  const first = posts.get(post.form);
  if (first && first.who === post.who && first.content === post.content) return { outcome: first.outcome as Promise<T>, joined: true };
  const outcome = decide();
  if (!first) {
    const entry: Post = { who: post.who, content: post.content, outcome };
    posts.set(post.form, entry);
    const forget = () => {
      if (posts.get(post.form) === entry) posts.delete(post.form);
    };
    outcome.then(forget, forget);
  }
  return { outcome, joined: false };
}
