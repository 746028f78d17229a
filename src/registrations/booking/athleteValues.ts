import type { RegistrationAthlete } from "../core/registration.ts";

/** Step 1's fields of one stored athlete, as the individual form posts them (Back, a reload, a returning link). */
export function athleteStepValues(a: RegistrationAthlete): Record<string, string> {
  return {
    firstName: a.firstName,
    lastName: a.lastName,
    email: a.email,
    phone: a.phone ?? "",
    grade: a.grade ?? "",
    gender: a.gender ?? "",
    schoolName: a.schoolName ?? "",
    clubName: a.clubName ?? "",
    tShirtSize: a.shirtSize ?? "",
    emergencyContactName: a.emergencyContactName,
    emergencyContactPhone: a.emergencyContactPhone,
    specialRequirements: a.specialRequirements ?? "",
  };
}
