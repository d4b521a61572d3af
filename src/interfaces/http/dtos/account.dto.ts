import { IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../../core/domain/password';
import { Checks, Required } from '../validation/fields';

export class CreateAccountDto {
  @Required()
  @Checks(IsString(), MaxLength(254), IsEmail({}, { message: 'email must be an email address' }))
  email!: string;

  /** Its content (not blank, not a common password) is the core's rule: core/domain/password.ts. */
  @Required()
  @Checks(
    IsString(),
    Length(MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, {
      message: `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`,
    }),
  )
  password!: string;
}
