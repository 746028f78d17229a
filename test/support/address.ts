/** A valid US shipping address for checkout tests. */
export const ADDRESS = { name: "Jordan Burroughs", line1: "2100 1st Avenue North", line2: "Suite 300", city: "Birmingham", state: "AL", zip: "35203" };
